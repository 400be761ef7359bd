package verify

import (
	"context"
	"encoding/json"
	"regexp"
	"sort"
	"strings"

	"github.com/emberchain/ember/explorer"
)

// Verification from sources and settings as people have them besides
// solc's metadata (Blockscout's /verification/via/standard-input and
// /flattened-code): the deployed code cannot be matched without compiling,
// so both need the configured compiler, of the version the request names.

// checkCompiler refuses without a compiler, or with one of another version
// than want ("v0.8.28+commit.7893614a" or without the v).
func checkCompiler(ctx context.Context, c *Compiler, want string) (string, error) {
	if c == nil {
		return "", refuse("this verification compiles the sources, and the explorer has no compiler configured ([explorer] solc)")
	}
	version, err := c.Version(ctx)
	if err != nil {
		return "", err
	}
	if w := strings.TrimPrefix(want, "v"); w != version {
		return "", refuse("the request names compiler %s, but the configured compiler is %s", want, version)
	}
	return version, nil
}

// standardInput is solc's standard-JSON input, as the compiler reads it.
type standardInput struct {
	Language string `json:"language"`
	Sources  map[string]struct {
		Content *string `json:"content"`
	} `json:"sources"`
	Settings map[string]any `json:"settings"`
}

// VerifyStandardInput verifies code against a solc standard-JSON input
// (raw) and the contract it names: "path:Name", or "Name" when one source
// declares it.
func VerifyStandardInput(ctx context.Context, c *Compiler, compilerVersion string, code, creation, raw []byte, contractName string) (*explorer.VerifiedContract, error) {
	var in standardInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, refuse("the standard-JSON input is not JSON: %v", err)
	}
	if in.Language == "" {
		in.Language = "Solidity"
	}
	if in.Language != "Solidity" {
		return nil, refuse("language %q: only Solidity is verified", in.Language)
	}
	if len(in.Sources) == 0 {
		return nil, refuse("the standard-JSON input has no sources")
	}
	sources := make(map[string]string, len(in.Sources))
	for p, s := range in.Sources {
		if s.Content == nil {
			return nil, refuse("source %s has no content (urls are not fetched)", p)
		}
		sources[p] = *s.Content
	}
	file, name, err := target(sources, contractName)
	if err != nil {
		return nil, err
	}
	version, err := checkCompiler(ctx, c, compilerVersion)
	if err != nil {
		return nil, err
	}
	settings := in.Settings
	if settings == nil {
		settings = map[string]any{}
	}
	delete(settings, "outputSelection")
	return compileMatch(ctx, c, version, code, creation,
		&Input{Language: "Solidity", Sources: sources, Settings: settings, File: file, Name: name}, "")
}

// Flattened is a single-file (flattened) source and the settings it is
// compiled with, as Blockscout's flattened-code form takes them.
type Flattened struct {
	CompilerVersion string
	Source          string
	ContractName    string // the contract to match; its file is ContractName + ".sol"
	Optimization    bool
	Runs            int64  // optimizer runs (with Optimization)
	EVMVersion      string // "" or "default": the compiler's default
}

// VerifyFlattened verifies code against one source file.
func VerifyFlattened(ctx context.Context, c *Compiler, code, creation []byte, f *Flattened) (*explorer.VerifiedContract, error) {
	if strings.TrimSpace(f.Source) == "" {
		return nil, refuse("source_code is empty")
	}
	if !identRE.MatchString(f.ContractName) {
		return nil, refuse("contract_name %q is not a Solidity identifier", f.ContractName)
	}
	file := f.ContractName + ".sol"
	if _, _, err := target(map[string]string{file: f.Source}, f.ContractName); err != nil {
		return nil, err
	}
	version, err := checkCompiler(ctx, c, f.CompilerVersion)
	if err != nil {
		return nil, err
	}
	optimizer := map[string]any{"enabled": f.Optimization}
	if f.Optimization {
		optimizer["runs"] = f.Runs
	}
	settings := map[string]any{"optimizer": optimizer}
	if f.EVMVersion != "" && f.EVMVersion != "default" {
		settings["evmVersion"] = f.EVMVersion
	}
	return compileMatch(ctx, c, version, code, creation,
		&Input{Language: "Solidity", Sources: map[string]string{file: f.Source}, Settings: settings, File: file, Name: f.ContractName}, "")
}

var identRE = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// target finds the source file declaring the named contract: name is
// "path:Name" or a bare Name one source declares.
func target(sources map[string]string, name string) (file, contract string, err error) {
	if name == "" {
		return "", "", refuse("contract_name is required")
	}
	if i := strings.LastIndex(name, ":"); i >= 0 {
		file, contract = name[:i], name[i+1:]
		if _, ok := sources[file]; !ok {
			return "", "", refuse("contract_name %q: no source %s", name, file)
		}
		return file, contract, nil
	}
	decl := regexp.MustCompile(`\b(?:abstract\s+)?(?:contract|library|interface)\s+` + regexp.QuoteMeta(name) + `\b`)
	var found []string
	for p, s := range sources {
		if decl.MatchString(s) {
			found = append(found, p)
		}
	}
	sort.Strings(found)
	switch len(found) {
	case 1:
		return found[0], name, nil
	case 0:
		return "", "", refuse("no source declares contract %s", name)
	default:
		return "", "", refuse("contract %s is declared in %s: name one as path:%s", name, strings.Join(found, ", "), name)
	}
}
