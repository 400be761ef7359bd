package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
)

// Compiler is a solc binary (or solc-js's solcjs: both take
// --standard-json on stdin) used for partial matches: sources that compile
// to the deployed code except for the metadata trailer (a comment or a
// file name changed).
type Compiler struct {
	Path    string
	Timeout time.Duration // per run; 0 = 2 minutes
}

var versionRE = regexp.MustCompile(`\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?\+commit\.[0-9a-f]+`)

func (c *Compiler) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("solc %s: %v: %s", c.Path, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Version is the compiler's version, "0.8.28+commit.7893614a".
func (c *Compiler) Version(ctx context.Context) (string, error) {
	out, err := c.run(ctx, nil, "--version")
	if err != nil {
		return "", err
	}
	v := versionRE.FindString(string(out))
	if v == "" {
		return "", fmt.Errorf("solc %s --version: no version in %q", c.Path, out)
	}
	return v, nil
}

type compiled struct {
	Errors []struct {
		Severity         string `json:"severity"`
		FormattedMessage string `json:"formattedMessage"`
	} `json:"errors"`
	Contracts map[string]map[string]struct {
		Metadata string          `json:"metadata"`
		ABI      json.RawMessage `json:"abi"`
		EVM      struct {
			Bytecode struct {
				Object string `json:"object"`
			} `json:"bytecode"`
			DeployedBytecode struct {
				Object              string `json:"object"`
				ImmutableReferences map[string][]struct {
					Start  int `json:"start"`
					Length int `json:"length"`
				} `json:"immutableReferences"`
			} `json:"deployedBytecode"`
		} `json:"evm"`
	} `json:"contracts"`
}

// stripTrailer is code without its CBOR trailer (all of it when none).
func stripTrailer(code []byte) []byte {
	if t, err := ParseTrailer(code); err == nil {
		return code[:len(code)-len(t.Raw)]
	}
	return code
}

// VerifyCompiling is Verify, and when that refuses and c is set, a
// compilation of the sources with the metadata's settings: runtime code
// equal to the deployed code without the trailers (immutables aside) is a
// partial match, equal with them a full one.
func VerifyCompiling(ctx context.Context, c *Compiler, code, creation []byte, files map[string][]byte) (*explorer.VerifiedContract, error) {
	vc, err := Verify(code, creation, files)
	if err == nil || c == nil || len(code) == 0 {
		return vc, err
	}
	if _, ok := err.(*Refusal); !ok {
		return nil, err
	}
	first := err
	var meta *Metadata
	var metaName string
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if m, ok := parseMetadata(files[n]); ok {
			meta, metaName = m, n
			break
		}
	}
	if meta == nil {
		return nil, first
	}
	version, err := c.Version(ctx)
	if err != nil {
		return nil, err
	}
	if version != meta.Compiler.Version {
		return nil, refuse("%s; a compilation would need solc %s, but the configured compiler is %s", first, meta.Compiler.Version, version)
	}
	// Sources: by content hash, else by unique base name (the content may
	// differ from what the metadata hashed: that is what a partial match
	// allows).
	byHash := map[common.Hash][]byte{}
	byBase := map[string][][]byte{}
	for _, n := range names {
		if n == metaName {
			continue
		}
		byHash[crypto.Keccak256Hash(files[n])] = files[n]
		byBase[path.Base(n)] = append(byBase[path.Base(n)], files[n])
	}
	contents := map[string]string{}
	for p, src := range meta.Sources {
		var content []byte
		switch {
		case src.Content != nil:
			content = []byte(*src.Content)
		case byHash[common.HexToHash(src.Keccak256)] != nil:
			content = byHash[common.HexToHash(src.Keccak256)]
		case len(byBase[path.Base(p)]) == 1:
			content = byBase[path.Base(p)][0]
		case len(byBase[path.Base(p)]) > 1:
			return nil, refuse("%s; source %s: several uploaded files are named %s and none hashes to the metadata's keccak256", first, p, path.Base(p))
		default:
			return nil, refuse("%s; source %s is missing", first, p)
		}
		contents[p] = string(content)
	}
	var cfg map[string]any
	if err := json.Unmarshal(meta.Settings, &cfg); err != nil {
		return nil, refuse("metadata settings: %v", err)
	}
	if err := json.Unmarshal(meta.Settings, new(settings)); err != nil {
		return nil, refuse("metadata settings: %v", err)
	}
	target, _ := cfg["compilationTarget"].(map[string]any)
	if len(target) != 1 {
		return nil, refuse("the metadata names %d compilation targets, want 1", len(target))
	}
	var targetFile, targetName string
	for f, n := range target {
		targetFile, targetName = f, fmt.Sprint(n)
	}
	delete(cfg, "compilationTarget")
	if libs, ok := cfg["libraries"].(map[string]any); ok { // "file:Lib": addr → file: {Lib: addr}
		conv := map[string]any{}
		for k, v := range libs {
			file, lib, _ := strings.Cut(k, ":")
			m, _ := conv[file].(map[string]any)
			if m == nil {
				m = map[string]any{}
				conv[file] = m
			}
			m[lib] = v
		}
		cfg["libraries"] = conv
	}
	in := &Input{Language: meta.Language, Sources: contents, Settings: cfg, File: targetFile, Name: targetName,
		License: meta.Sources[targetFile].License}
	return compileMatch(ctx, c, version, code, creation, in, first.Error()+"; ")
}

// Input is one solc standard-JSON compilation (language, sources,
// settings) and the contract it is to produce.
type Input struct {
	Language   string
	Sources    map[string]string // path → content
	Settings   map[string]any    // solc's settings; outputSelection is set by the compilation
	File, Name string            // the target contract: its source path and name
	License    string            // the target's SPDX identifier ("" = read from its source)
}

// compileMatch compiles in with c (of version) and compares the target's
// runtime code with the deployed code: equal is a full match, equal but
// for the metadata trailers a partial one; immutables are masked. why
// prefixes a refusal's reason.
func compileMatch(ctx context.Context, c *Compiler, version string, code, creation []byte, in *Input, why string) (*explorer.VerifiedContract, error) {
	cfg := map[string]any{}
	for k, v := range in.Settings {
		cfg[k] = v
	}
	targetFile, targetName := in.File, in.Name
	sources := map[string]any{}
	for p, content := range in.Sources {
		sources[p] = map[string]any{"content": content}
	}
	contents := in.Sources
	stJSON, _ := json.Marshal(in.Settings)
	var st settings // what the record shows of them
	if err := json.Unmarshal(stJSON, &st); err != nil {
		return nil, refuse("settings: %v", err)
	}
	cfg["outputSelection"] = map[string]any{targetFile: map[string]any{targetName: []string{
		"abi", "metadata", "evm.bytecode.object", "evm.deployedBytecode.object", "evm.deployedBytecode.immutableReferences"}}}
	input, _ := json.Marshal(map[string]any{"language": in.Language, "sources": sources, "settings": cfg})
	out, err := c.run(ctx, input, "--standard-json")
	if err != nil {
		return nil, err
	}
	// solc-js may print notes (">>> Cannot retry compilation with SMT…")
	// before the JSON.
	if i := bytes.Index(out, []byte("\n{")); i >= 0 && !bytes.HasPrefix(bytes.TrimSpace(out), []byte("{")) {
		out = out[i+1:]
	}
	var res compiled
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("solc output: %w", err)
	}
	for _, e := range res.Errors {
		if e.Severity == "error" {
			return nil, refuse("%sthe sources do not compile: %s", why, strings.TrimSpace(e.FormattedMessage))
		}
	}
	ct, ok := res.Contracts[targetFile][targetName]
	if !ok {
		return nil, refuse("%sthe compilation has no %s in %s", why, targetName, targetFile)
	}
	if strings.Contains(ct.EVM.DeployedBytecode.Object, "__$") {
		return nil, refuse("%sthe contract links libraries, which verification does not support yet", why)
	}
	runtime, err := hexutil.Decode("0x" + ct.EVM.DeployedBytecode.Object)
	if err != nil {
		return nil, fmt.Errorf("solc output: deployed bytecode: %w", err)
	}
	deployed := append([]byte{}, code...)
	for _, refs := range ct.EVM.DeployedBytecode.ImmutableReferences {
		for _, r := range refs {
			if r.Start >= 0 && r.Start+r.Length <= len(deployed) {
				copy(deployed[r.Start:r.Start+r.Length], make([]byte, r.Length))
			}
		}
	}
	full := bytes.Equal(runtime, deployed)
	if !full && !bytes.Equal(stripTrailer(runtime), stripTrailer(deployed)) {
		return nil, refuse("%sthe sources compiled with solc %s do not produce the deployed bytecode", why, version)
	}
	// The record: what was compiled, with the compiler's own metadata.
	vc := &explorer.VerifiedContract{
		Name: targetName, Language: strings.ToLower(in.Language), CompilerVersion: "v" + version,
		ABI: string(ct.ABI), FilePath: targetFile, SourceCode: contents[targetFile], Settings: recordedSettings(ct.Metadata, stJSON),
		Metadata: ct.Metadata, DeployedCode: code, CodeHash: crypto.Keccak256Hash(code), FullMatch: full,
	}
	vc.EVMVersion, vc.Optimization, vc.OptimizerRuns = st.EVMVersion, st.Optimizer.Enabled, st.Optimizer.Runs
	if vc.EVMVersion == "" {
		vc.EVMVersion = "default"
	}
	license := in.License
	if license == "" {
		if m := spdxRE.FindStringSubmatch(contents[targetFile]); m != nil {
			license = m[1]
		}
	}
	vc.LicenseType = licenseType(license)
	paths := make([]string, 0, len(contents))
	for p := range contents {
		if p != targetFile {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		vc.Sources = append(vc.Sources, explorer.SourceFile{Path: p, Content: contents[p]})
	}
	if t, err := ParseTrailer(code); err == nil {
		if i := bytes.LastIndex(creation, t.Raw); i >= 0 {
			vc.CreationCode, vc.ConstructorArgs = creation[:i+len(t.Raw)], append([]byte{}, creation[i+len(t.Raw):]...)
		}
	}
	return vc, nil
}

var spdxRE = regexp.MustCompile(`SPDX-License-Identifier:\s*([^\s*]+)`)

// recordedSettings are the settings a verified contract records: those of
// the compiler's own metadata (compilationTarget included, as a metadata
// match records them), else the ones compiled with.
func recordedSettings(metadata string, compiled []byte) string {
	if m, ok := parseMetadata([]byte(metadata)); ok {
		return string(m.Settings)
	}
	return string(compiled)
}
