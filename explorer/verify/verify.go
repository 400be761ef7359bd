package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
)

// Refusal is a verification that failed for a reason the submitter can act
// on (as opposed to an error reading the chain).
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }

func refuse(format string, args ...any) error { return &Refusal{Reason: fmt.Sprintf(format, args...)} }

// Metadata is the part of solc's metadata JSON verification reads.
type Metadata struct {
	Compiler struct {
		Version string `json:"version"`
	} `json:"compiler"`
	Language string `json:"language"`
	Output   struct {
		ABI json.RawMessage `json:"abi"`
	} `json:"output"`
	Settings json.RawMessage           `json:"settings"`
	Sources  map[string]MetadataSource `json:"sources"`
}

// MetadataSource is one source the metadata lists.
type MetadataSource struct {
	Keccak256 string  `json:"keccak256"`
	Content   *string `json:"content"` // when compiled with useLiteralContent
	License   string  `json:"license"`
}

type settings struct {
	CompilationTarget map[string]string `json:"compilationTarget"`
	EVMVersion        string            `json:"evmVersion"`
	Optimizer         struct {
		Enabled bool   `json:"enabled"`
		Runs    *int64 `json:"runs"`
	} `json:"optimizer"`
}

// parseMetadata reads b as metadata; ok is false when b is not metadata at
// all (a source file, say).
func parseMetadata(b []byte) (*Metadata, bool) {
	var m Metadata
	if err := json.Unmarshal(b, &m); err != nil || m.Sources == nil || m.Settings == nil || m.Compiler.Version == "" {
		return nil, false
	}
	return &m, true
}

// hashes are the metadata hashes a trailer names, with their spelling.
func describe(t *Trailer) string {
	switch {
	case t.IPFS != nil:
		return "ipfs " + Base58(t.IPFS)
	case t.Bzzr1 != nil:
		return "bzzr1 " + hexutil.Encode(t.Bzzr1)
	default:
		return "bzzr0 " + hexutil.Encode(t.Bzzr0)
	}
}

// matches reports whether meta hashes to what the trailer names.
func matches(t *Trailer, meta []byte) (bool, string) {
	switch {
	case t.IPFS != nil:
		h := IPFSHash(meta)
		return bytes.Equal(h, t.IPFS), "ipfs " + Base58(h)
	case t.Bzzr1 != nil:
		h := Bzzr1Hash(meta)
		return bytes.Equal(h, t.Bzzr1), "bzzr1 " + hexutil.Encode(h)
	default:
		h := Bzzr0Hash(meta)
		return bytes.Equal(h, t.Bzzr0), "bzzr0 " + hexutil.Encode(h)
	}
}

// Verify checks files (metadata JSON and sources, by any names) against
// runtime code, the code deployed at the address. creation is the input of
// the transaction that created the contract (nil when unknown): the bytes
// after its copy of the runtime code's trailer are the constructor
// arguments. The result is a full match, or a *Refusal saying why not.
func Verify(code, creation []byte, files map[string][]byte) (*explorer.VerifiedContract, error) {
	if len(code) == 0 {
		return nil, refuse("no contract code at this address")
	}
	t, err := ParseTrailer(code)
	if err != nil {
		return nil, &Refusal{Reason: err.Error()}
	}
	// The metadata: the file that parses as metadata and hashes to the
	// trailer's hash (several may be uploaded).
	var (
		meta    *Metadata
		metaRaw []byte
		tried   []string
	)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m, ok := parseMetadata(files[n])
		if !ok {
			continue
		}
		if ok, got := matches(t, files[n]); ok {
			meta, metaRaw = m, files[n]
			break
		} else {
			tried = append(tried, fmt.Sprintf("%s hashes to %s", n, got))
		}
	}
	if meta == nil {
		if len(tried) == 0 {
			return nil, refuse("no metadata JSON among the files (solc's metadata: a JSON object with compiler, language, settings and sources)")
		}
		return nil, refuse("the metadata does not match the deployed bytecode: the bytecode's trailer names %s, but %s", describe(t), strings.Join(tried, ", "))
	}
	var st settings
	if err := json.Unmarshal(meta.Settings, &st); err != nil {
		return nil, refuse("metadata settings: %v", err)
	}
	if len(st.CompilationTarget) != 1 {
		return nil, refuse("the metadata names %d compilation targets, want 1", len(st.CompilationTarget))
	}
	var targetFile, targetName string
	for f, n := range st.CompilationTarget {
		targetFile, targetName = f, n
	}

	// The sources: each must be among the files (matched by content hash,
	// so names and directories do not matter) or literal in the metadata.
	byHash := make(map[common.Hash][]byte, len(files))
	for _, n := range names {
		byHash[crypto.Keccak256Hash(files[n])] = files[n]
	}
	byBase := make(map[string]bool, len(files))
	for _, n := range names {
		byBase[path.Base(n)] = true
	}
	paths := make([]string, 0, len(meta.Sources))
	for p := range meta.Sources {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	vc := &explorer.VerifiedContract{
		Name:            targetName,
		Language:        strings.ToLower(meta.Language),
		CompilerVersion: "v" + meta.Compiler.Version,
		EVMVersion:      st.EVMVersion,
		Optimization:    st.Optimizer.Enabled,
		OptimizerRuns:   st.Optimizer.Runs,
		LicenseType:     licenseType(meta.Sources[targetFile].License),
		ABI:             string(meta.Output.ABI),
		FilePath:        targetFile,
		Settings:        string(meta.Settings),
		Metadata:        string(metaRaw),
		DeployedCode:    code,
		CodeHash:        crypto.Keccak256Hash(code),
		FullMatch:       true,
	}
	if vc.EVMVersion == "" {
		vc.EVMVersion = "default"
	}
	if len(meta.Output.ABI) == 0 {
		vc.ABI = "[]"
	}
	for _, p := range paths {
		src := meta.Sources[p]
		want := common.HexToHash(src.Keccak256)
		var content []byte
		if src.Content != nil {
			content = []byte(*src.Content)
			if crypto.Keccak256Hash(content) != want {
				return nil, refuse("source %s: the content in the metadata does not hash to its keccak256 %s", p, want.Hex())
			}
		} else if c, ok := byHash[want]; ok {
			content = c
		} else if byBase[path.Base(p)] {
			return nil, refuse("source %s was modified: no uploaded file named %s hashes to the metadata's keccak256 %s", p, path.Base(p), want.Hex())
		} else {
			return nil, refuse("source %s is missing: upload every file the metadata lists (%d)", p, len(paths))
		}
		if p == targetFile {
			vc.SourceCode = string(content)
		} else {
			vc.Sources = append(vc.Sources, explorer.SourceFile{Path: p, Content: string(content)})
		}
	}
	if i := bytes.LastIndex(creation, t.Raw); i >= 0 {
		end := i + len(t.Raw)
		vc.CreationCode = creation[:end]
		vc.ConstructorArgs = append([]byte{}, creation[end:]...)
	}
	return vc, nil
}

// licenseType maps an SPDX identifier to Blockscout's license enum.
func licenseType(spdx string) string {
	s := strings.ToUpper(strings.TrimSpace(spdx))
	switch {
	case s == "MIT":
		return "mit"
	case s == "UNLICENSE":
		return "unlicense"
	case strings.HasPrefix(s, "GPL-2.0"):
		return "gnu_gpl_v2"
	case strings.HasPrefix(s, "GPL-3.0"):
		return "gnu_gpl_v3"
	case strings.HasPrefix(s, "LGPL-2.1"):
		return "gnu_lgpl_v2_1"
	case strings.HasPrefix(s, "LGPL-3.0"):
		return "gnu_lgpl_v3"
	case s == "BSD-2-CLAUSE":
		return "bsd_2_clause"
	case s == "BSD-3-CLAUSE":
		return "bsd_3_clause"
	case s == "MPL-2.0":
		return "mpl_2_0"
	case s == "OSL-3.0":
		return "osl_3_0"
	case s == "APACHE-2.0":
		return "apache_2_0"
	case strings.HasPrefix(s, "AGPL-3.0"):
		return "gnu_agpl_v3"
	case s == "BUSL-1.1":
		return "bsl_1_1"
	}
	return "none"
}
