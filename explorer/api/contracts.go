package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/decode"
	"github.com/emberchain/ember/explorer/verify"
)

// abiCache holds the parsed verified ABIs the handlers decode with.
var abiCache decode.ABICache

// maxVerifyBody bounds a verification upload (metadata and every source).
const maxVerifyBody = 32 << 20

// contractRoutes adds the verified-contract, decoding and summary
// endpoints.
func (h *handlers) contractRoutes(mux *http.ServeMux) {
	for path, fn := range map[string]func(*request) (any, error){
		"/api/v2/smart-contracts":                            h.smartContracts,
		"/api/v2/smart-contracts/counters":                   h.smartContractCounters,
		"/api/v2/smart-contracts/{hash}":                     h.smartContract,
		"/api/v2/smart-contracts/{hash}/methods-read":        h.methodsRead,
		"/api/v2/smart-contracts/{hash}/methods-write":       h.methodsWrite,
		"/api/v2/smart-contracts/{hash}/methods-read-proxy":  h.methodsReadProxy,
		"/api/v2/smart-contracts/{hash}/methods-write-proxy": h.methodsWriteProxy,
		"/api/v2/transactions/{hash}/summary":                h.txSummary,
	} {
		mux.Handle("GET "+path, h.serve(fn))
	}
	for _, via := range []string{"sourcify-metadata", "sourcify"} {
		mux.Handle("POST /api/v2/smart-contracts/{hash}/verification/via/"+via, h.serve(h.verifySourcifyMetadata))
	}
	mux.Handle("POST /api/v2/smart-contracts/{hash}/verification/via/standard-input", h.serve(h.verifyStandardInput))
	mux.Handle("POST /api/v2/smart-contracts/{hash}/verification/via/flattened-code", h.serve(h.verifyFlattened))
}

// verifySourcifyMetadata verifies a contract from solc's metadata JSON and
// its sources, sent as multipart/form-data files (any field names, as
// Blockscout's form sends files[0], files[1], …) or as a JSON body
// {"files": {"name": "content", …}}: the metadata's IPFS (or Swarm) hash
// must be the one in the deployed code's CBOR trailer and every source must
// hash to the keccak256 the metadata lists. A refusal is a 422 saying why.
func (h *handlers) verifySourcifyMetadata(r *request) (any, error) {
	t, err := h.verifyTarget(r)
	if err != nil {
		return nil, err
	}
	files, err := uploadedFiles(r)
	if err != nil {
		return nil, err
	}
	vc, err := verify.VerifyCompiling(r.Context(), h.compiler(), t.code, t.creation, files)
	return h.saveVerified(r, t.addr, vc, err)
}

// verifyStandardInput verifies a contract from solc's standard-JSON input
// (Blockscout's form: multipart fields compiler_version, contract_name and
// the input as a file), compiled by the configured compiler.
func (h *handlers) verifyStandardInput(r *request) (any, error) {
	t, err := h.verifyTarget(r)
	if err != nil {
		return nil, err
	}
	files, err := uploadedFiles(r)
	if err != nil {
		return nil, err
	}
	if len(files) != 1 {
		return nil, invalid("Send one file: the standard-JSON input")
	}
	var input []byte
	for _, b := range files {
		input = b
	}
	var version, name string
	if r.MultipartForm != nil {
		version, name = first(r.MultipartForm.Value["compiler_version"]), first(r.MultipartForm.Value["contract_name"])
	}
	if version == "" {
		return nil, invalid("compiler_version is required")
	}
	vc, err := verify.VerifyStandardInput(r.Context(), h.compiler(), version, t.code, t.creation, input, name)
	return h.saveVerified(r, t.addr, vc, err)
}

func first(v []string) string {
	if len(v) == 0 {
		return ""
	}
	return v[0]
}

// flattenedRequest is Blockscout's flattened-code body.
type flattenedRequest struct {
	CompilerVersion  string `json:"compiler_version"`
	SourceCode       string `json:"source_code"`
	ContractName     string `json:"contract_name"`
	Optimization     bool   `json:"is_optimization_enabled"`
	OptimizationRuns *int64 `json:"optimization_runs"`
	EVMVersion       string `json:"evm_version"`
	LicenseType      string `json:"license_type"`
}

// verifyFlattened verifies a contract from one (flattened) source file and
// its compiler settings, compiled by the configured compiler.
func (h *handlers) verifyFlattened(r *request) (any, error) {
	t, err := h.verifyTarget(r)
	if err != nil {
		return nil, err
	}
	var body flattenedRequest
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, maxVerifyBody)).Decode(&body); err != nil {
		return nil, invalid("Invalid JSON body: " + err.Error())
	}
	if body.CompilerVersion == "" {
		return nil, invalid("compiler_version is required")
	}
	runs := int64(200) // solc's default
	if body.OptimizationRuns != nil {
		runs = *body.OptimizationRuns
	}
	vc, err := verify.VerifyFlattened(r.Context(), h.compiler(), t.code, t.creation, &verify.Flattened{
		CompilerVersion: body.CompilerVersion, Source: body.SourceCode, ContractName: body.ContractName,
		Optimization: body.Optimization, Runs: runs, EVMVersion: body.EVMVersion,
	})
	return h.saveVerified(r, t.addr, vc, err)
}

// verifyTargetCode is the contract a verification request names: its
// address, deployed code and creation input (nil when unknown).
type verifyTargetCode struct {
	addr           common.Address
	code, creation []byte
}

func (h *handlers) verifyTarget(r *request) (*verifyTargetCode, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	a, err := h.b.Store.Address(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	if !a.IsContract {
		return nil, invalid("Address is not a smart-contract")
	}
	if h.b.Chain == nil {
		return nil, invalid("verification needs the contract's code, which this explorer's source cannot read")
	}
	code, err := h.b.Chain.CodeAt(r.Context(), addr)
	if err != nil {
		return nil, err
	}
	t := &verifyTargetCode{addr: addr, code: code}
	if a.CreationTx != nil {
		if tx, err := h.b.Store.Tx(r.Context(), *a.CreationTx); err == nil && tx.To == nil {
			t.creation = tx.Input
		}
	}
	return t, nil
}

// compiler is the configured solc, or nil.
func (h *handlers) compiler() *verify.Compiler {
	if h.b.Solc == "" {
		return nil
	}
	// Within the server's 60 s write timeout.
	return &verify.Compiler{Path: h.b.Solc, Timeout: 50 * time.Second}
}

// saveVerified stores a verification's result, or answers its refusal
// (422 with the reason).
func (h *handlers) saveVerified(r *request, addr common.Address, vc *explorer.VerifiedContract, err error) (any, error) {
	var refusal *verify.Refusal
	if errors.As(err, &refusal) {
		return nil, invalid("Verification failed: " + refusal.Reason)
	}
	if err != nil {
		return nil, err
	}
	vc.Address, vc.VerifiedAt = addr, h.b.Now().Unix()
	if err := h.b.Store.SaveVerifiedContract(r.Context(), vc); err != nil {
		return nil, err
	}
	match := "full match"
	if !vc.FullMatch {
		match = "partial match (the code matches, the metadata hash does not)"
	}
	return verified{AddressHash: addr.Hex(), Message: "Smart-contract verified: " + match, Name: vc.Name}, nil
}

// uploadedFiles reads the files of a verification request.
func uploadedFiles(r *request) (map[string][]byte, error) {
	r.Body = http.MaxBytesReader(nil, r.Body, maxVerifyBody)
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	files := map[string][]byte{}
	switch ct {
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxVerifyBody); err != nil {
			return nil, invalid("Invalid multipart form: " + err.Error())
		}
		defer r.MultipartForm.RemoveAll() // temporary files of large parts
		n := 0
		fields := make([]string, 0, len(r.MultipartForm.File))
		for f := range r.MultipartForm.File {
			fields = append(fields, f)
		}
		sort.Strings(fields)
		for _, f := range fields {
			for _, fh := range r.MultipartForm.File[f] {
				rd, err := fh.Open()
				if err != nil {
					return nil, err
				}
				b, err := io.ReadAll(rd)
				rd.Close()
				if err != nil {
					return nil, invalid("Invalid multipart form: " + err.Error())
				}
				// Uploads may share a base name (two IERC20.sol): keep each.
				files[strconv.Itoa(n)+"/"+fh.Filename] = b
				n++
			}
		}
	case "application/json":
		var body struct {
			Files map[string]string `json:"files"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			return nil, invalid("Invalid JSON body: " + err.Error())
		}
		for name, content := range body.Files {
			files[name] = []byte(content)
		}
	default:
		return nil, invalid(`Send the metadata JSON and the sources as multipart/form-data files, or as a JSON body {"files": {"name": "content"}}`)
	}
	if len(files) == 0 {
		return nil, invalid("No files: send the metadata JSON and every source it lists")
	}
	return files, nil
}

// smartContracts is /api/v2/smart-contracts: verified contracts, newest
// verification first; q searches names, filter narrows to a language.
func (h *handlers) smartContracts(r *request) (any, error) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	lang := strings.ToLower(r.URL.Query().Get("filter"))
	switch lang {
	case "", "solidity", "vyper", "yul":
	default:
		return nil, invalid("Invalid filter: " + lang + " (solidity, vyper or yul)")
	}
	before, err := r.queryUint("smart_contract_id")
	if err != nil {
		return nil, err
	}
	count, err := r.itemsCount()
	if err != nil {
		return nil, err
	}
	var beforeID int64
	if before != nil {
		beforeID = int64(*before)
		if beforeID == 0 {
			return emptyPage(), nil
		}
	}
	list, err := h.b.Store.VerifiedContracts(r.Context(), q, lang, beforeID, PageSize+1)
	if err != nil {
		return nil, err
	}
	return keysetPage(list, count, func(list []explorer.VerifiedContract) ([]*verifiedContractItem, error) {
		items := make([]*verifiedContractItem, len(list))
		for i := range list {
			c := &list[i]
			a, err := h.b.Store.Address(r.Context(), c.Address)
			if err != nil {
				return nil, err
			}
			param := addressParam(c.Address, true)
			param.IsVerified, param.Name = true, &c.Name
			items[i] = &verifiedContractItem{
				Address:             param,
				CoinBalance:         a.Balance.String(),
				CompilerVersion:     c.CompilerVersion,
				Language:            c.Language,
				HasConstructorArgs:  len(c.ConstructorArgs) > 0,
				OptimizationEnabled: c.Optimization,
				TxCount:             a.TxCount,
				VerifiedAt:          isoTime(uint64(c.VerifiedAt)),
				Reputation:          "ok",
				LicenseType:         c.LicenseType,
			}
		}
		return items, nil
	}, func(last *explorer.VerifiedContract, n uint64) any {
		return contractPosition{ID: last.ID, ItemsCount: n}
	})
}

// smartContractCounters is /api/v2/smart-contracts/counters.
func (h *handlers) smartContractCounters(r *request) (any, error) {
	c, err := h.b.Store.ContractCounts(r.Context(), h.b.Now().Add(-24*time.Hour).Unix())
	if err != nil {
		return nil, err
	}
	return contractCounters{
		NewContracts: u64(c.NewContracts),
		NewVerified:  u64(c.NewVerified),
		Contracts:    u64(c.Contracts),
		Verified:     u64(c.Verified),
	}, nil
}

// contractInfo is a contract address's verification (or its verified
// twin's: another address with the same code) and proxy resolution.
type contractInfo struct {
	addr     *explorer.Address
	code     []byte
	verified *explorer.VerifiedContract // nil when neither it nor a twin is
	twin     bool                       // verified is another address's
	name     string                     // the verified name (of the address itself), "" if none
	proxy    *explorer.Proxy
	implABIs map[common.Address]explorer.ContractABI
}

// contractInfo reads what the explorer knows of addr as a contract; full
// also reads the verification with its sources and looks for a twin
// (otherwise only the verified name is read).
func (h *handlers) contractInfo(ctx context.Context, addr common.Address, full bool) (*contractInfo, error) {
	a, err := h.b.Store.Address(ctx, addr)
	if err != nil {
		return nil, err
	}
	ci := &contractInfo{addr: a}
	if !a.IsContract {
		return ci, nil
	}
	if full {
		vc, err := h.b.Store.VerifiedContract(ctx, addr)
		switch {
		case err == nil:
			ci.verified, ci.name = vc, vc.Name
		case !errors.Is(err, explorer.ErrNotFound):
			return nil, err
		}
	} else {
		abis, err := h.b.Store.ContractABIs(ctx, []common.Address{addr})
		if err != nil {
			return nil, err
		}
		ci.name = abis[addr].Name
	}
	if h.b.Chain == nil {
		return ci, nil
	}
	if ci.code, err = h.b.Chain.CodeAt(ctx, addr); err != nil {
		return nil, err
	}
	if full && ci.verified == nil && len(ci.code) > 0 {
		twin, err := h.b.Store.VerifiedTwin(ctx, crypto.Keccak256Hash(ci.code))
		switch {
		case err == nil:
			ci.verified, ci.twin = twin, true
		case !errors.Is(err, explorer.ErrNotFound):
			return nil, err
		}
	}
	if ci.proxy, err = explorer.ResolveProxy(ctx, h.b.Chain, addr, ci.code); err != nil {
		return nil, err
	}
	if ci.proxy != nil {
		if ci.implABIs, err = h.b.Store.ContractABIs(ctx, ci.proxy.Implementations); err != nil {
			return nil, err
		}
	}
	return ci, nil
}

// implementations is Blockscout's list of {address_hash, name}.
func (ci *contractInfo) implementations() []implementation {
	out := []implementation{}
	if ci.proxy == nil {
		return out
	}
	for _, impl := range ci.proxy.Implementations {
		var name *string
		if a, ok := ci.implABIs[impl]; ok {
			name = &a.Name
		}
		out = append(out, implementation{AddressHash: impl.Hex(), Name: name})
	}
	return out
}

func (ci *contractInfo) proxyType() *string {
	if ci.proxy == nil {
		return nil
	}
	return &ci.proxy.Type
}

// addContractFields fills an address response's verification and proxy
// fields.
func (h *handlers) addContractFields(ctx context.Context, a *explorer.Address, o *addressItem) error {
	if !a.IsContract {
		return nil
	}
	ci, err := h.contractInfo(ctx, a.Hash, false)
	if err != nil {
		return err
	}
	if ci.name != "" {
		o.IsVerified, o.Name = true, &ci.name
	}
	o.ProxyType, o.Implementations = ci.proxyType(), ci.implementations()
	if ci.proxy != nil && len(ci.proxy.Implementations) > 0 {
		if a, ok := ci.implABIs[ci.proxy.Implementations[0]]; ok {
			o.ImplementationName = &a.Name
		}
	}
	return nil
}

// smartContract is /api/v2/smart-contracts/{hash}: the verified sources and
// ABI, or for an unverified contract its code, proxy resolution and any
// verified twin's ABI.
func (h *handlers) smartContract(r *request) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	ci, err := h.contractInfo(r.Context(), addr, true)
	if err != nil {
		return nil, err
	}
	if !ci.addr.IsContract {
		return nil, errNotFound
	}
	o := &contractJSON{
		CreationStatus:  "success",
		ProxyType:       ci.proxyType(),
		Implementations: ci.implementations(),
		CoinBalance:     ci.addr.Balance.String(),
		TxCount:         ci.addr.TxCount,
		Reputation:      "ok",
		Sources:         []sourceFile{},
	}
	if ci.code != nil {
		o.DeployedBytecode = ptr(hexutil.Encode(ci.code))
	}
	if ci.addr.CreationTx != nil {
		if tx, err := h.b.Store.Tx(r.Context(), *ci.addr.CreationTx); err == nil && tx.To == nil {
			o.CreationBytecode = ptr(hexutil.Encode(tx.Input))
		}
	}
	if vc := ci.verified; vc != nil {
		if err := o.fill(vc, ci); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// fill sets the verification's fields: its sources and settings, and for
// the address's own verification (not a twin's) its outcome. An ABI or
// settings that are not JSON make the row corrupt: Blockscout's schema lets
// both be null, but a verified contract shown without its ABI reads as one
// without methods, which is not what the row says.
func (o *contractJSON) fill(vc *explorer.VerifiedContract, ci *contractInfo) error {
	if ci.twin {
		o.VerifiedTwin = ptr(vc.Address.Hex())
	} else {
		o.IsVerified = true
		o.IsFullyVerified = vc.FullMatch
		o.IsPartiallyVerified = !vc.FullMatch
		o.VerifiedAt = ptr(isoTime(uint64(vc.VerifiedAt)))
		o.IsChangedBytecode = ci.code != nil && crypto.Keccak256Hash(ci.code) != vc.CodeHash
		if vc.CreationCode != nil {
			o.CreationBytecode = ptr(hexutil.Encode(append(append([]byte{}, vc.CreationCode...), vc.ConstructorArgs...)))
		}
		if vc.ConstructorArgs != nil {
			o.ConstructorArgs = ptr(hexutil.Encode(vc.ConstructorArgs))
			o.HasConstructorArgs = len(vc.ConstructorArgs) > 0
			if d := decode.Constructor(abiCache.Parse(vc.ABI), vc.ConstructorArgs); d != nil {
				o.DecodedConstructorArgs = d
			}
		}
	}
	// The ABI and settings are re-encoded as Go encodes them (object keys
	// sorted), as they always were.
	if err := json.Unmarshal([]byte(vc.ABI), &o.ABI); err != nil {
		return corruptABI(vc, err)
	}
	if err := json.Unmarshal([]byte(vc.Settings), &o.CompilerSettings); err != nil {
		return corrupt(err, "compiler settings of verified contract %s", vc.Address.Hex())
	}
	for _, f := range vc.Sources {
		o.Sources = append(o.Sources, sourceFile{Path: f.Path, Content: f.Content})
	}
	o.Name, o.Language, o.CompilerVersion, o.EVMVersion = &vc.Name, &vc.Language, &vc.CompilerVersion, &vc.EVMVersion
	o.OptimizationEnabled, o.LicenseType = &vc.Optimization, &vc.LicenseType
	o.SourceCode, o.FilePath = &vc.SourceCode, &vc.FilePath
	o.OptimizationRuns, o.OptimizationsRuns = vc.OptimizerRuns, vc.OptimizerRuns
	return nil
}

// corruptABI is the error of vc's stored ABI that is not JSON.
func corruptABI(vc *explorer.VerifiedContract, err error) error {
	return corrupt(err, "ABI of verified contract %s", vc.Address.Hex())
}

// methods lists an ABI's functions that read (view, pure) or write
// (everything else, and fallback and receive), in ABI order of name.
func methods(a *abi.ABI, read bool) []abi.Method {
	var out []abi.Method
	if a == nil {
		return out
	}
	for _, m := range a.Methods {
		if m.IsConstant() == read {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Sig < out[j].Sig })
	if !read {
		if a.HasFallback() {
			out = append(out, a.Fallback)
		}
		if a.HasReceive() {
			out = append(out, a.Receive)
		}
	}
	return out
}

// abiEntries are the methods' entries of vc's ABI JSON, keyed by
// signature.
func abiEntries(vc *explorer.VerifiedContract) (map[string]obj, error) {
	var raw []obj
	if err := json.Unmarshal([]byte(vc.ABI), &raw); err != nil {
		return nil, corruptABI(vc, err)
	}
	out := map[string]obj{}
	for _, e := range raw {
		switch e["type"] {
		case "function":
			var types []string
			if ins, ok := e["inputs"].([]any); ok {
				for _, in := range ins {
					types = append(types, canonicalType(in))
				}
			}
			out[fmt.Sprintf("%s(%s)", e["name"], strings.Join(types, ","))] = e
		case "fallback", "receive":
			out[e["type"].(string)] = e
		}
	}
	return out, nil
}

// canonicalType is an ABI parameter's type with tuples spelled out.
func canonicalType(p any) string {
	m, _ := p.(map[string]any)
	t, _ := m["type"].(string)
	if !strings.HasPrefix(t, "tuple") {
		return t
	}
	var parts []string
	if comps, ok := m["components"].([]any); ok {
		for _, c := range comps {
			parts = append(parts, canonicalType(c))
		}
	}
	return "(" + strings.Join(parts, ",") + ")" + strings.TrimPrefix(t, "tuple")
}

// methodList renders read or write methods as Blockscout does: each the
// ABI entry plus method_id; a read method without inputs also carries its
// current value in outputs[i].value (called at the head).
func (h *handlers) methodList(ctx context.Context, target common.Address, vc *explorer.VerifiedContract, read bool) ([]obj, error) {
	entries, err := abiEntries(vc)
	if err != nil {
		return nil, err
	}
	parsed := abiCache.Parse(vc.ABI)
	out := []obj{}
	for _, m := range methods(parsed, read) {
		key := m.Sig
		if m.Type == abi.Fallback {
			key = "fallback"
		} else if m.Type == abi.Receive {
			key = "receive"
		}
		e, ok := entries[key]
		if !ok {
			continue
		}
		item := obj{}
		for k, v := range e {
			item[k] = v
		}
		if m.Type == abi.Function {
			item["method_id"] = hexutil.Encode(m.ID)[2:]
		}
		if read && len(m.Inputs) == 0 && h.b.Chain != nil {
			h.fillOutputs(ctx, target, m, item)
		}
		out = append(out, item)
	}
	return out, nil
}

func (h *handlers) fillOutputs(ctx context.Context, target common.Address, m abi.Method, item obj) {
	ret, err := h.b.Chain.CallContract(ctx, target, m.ID)
	if err != nil {
		item["error"] = err.Error()
		return
	}
	vals, err := m.Outputs.Unpack(ret)
	if err != nil || len(vals) != len(m.Outputs) {
		return
	}
	outs, _ := item["outputs"].([]any)
	filled := make([]any, len(outs))
	for i, o := range outs {
		om, _ := o.(map[string]any)
		c := obj{}
		for k, v := range om {
			c[k] = v
		}
		if i < len(vals) {
			c["value"] = decode.Value(m.Outputs[i].Type, vals[i])
		}
		filled[i] = c
	}
	item["outputs"] = filled
}

func (h *handlers) methodsOf(r *request, read, viaProxy bool) (any, error) {
	addr, err := h.addressParam(r)
	if err != nil {
		return nil, err
	}
	ci, err := h.contractInfo(r.Context(), addr, true)
	if err != nil {
		return nil, err
	}
	if !ci.addr.IsContract {
		return nil, errNotFound
	}
	vc := ci.verified
	if viaProxy {
		vc = nil
		if ci.proxy != nil && len(ci.proxy.Implementations) > 0 {
			impl, err := h.b.Store.VerifiedContract(r.Context(), ci.proxy.Implementations[0])
			if err != nil && !errors.Is(err, explorer.ErrNotFound) {
				return nil, err
			}
			vc = impl
		}
	}
	if vc == nil {
		return []obj{}, nil
	}
	// Reads through a proxy run against the proxy (its storage).
	return h.methodList(r.Context(), addr, vc, read)
}

func (h *handlers) methodsRead(r *request) (any, error)       { return h.methodsOf(r, true, false) }
func (h *handlers) methodsWrite(r *request) (any, error)      { return h.methodsOf(r, false, false) }
func (h *handlers) methodsReadProxy(r *request) (any, error)  { return h.methodsOf(r, true, true) }
func (h *handlers) methodsWriteProxy(r *request) (any, error) { return h.methodsOf(r, false, true) }
