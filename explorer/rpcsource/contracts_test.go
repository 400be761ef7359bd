package rpcsource

import (
	"context"
	"errors"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/emberchain/ember/explorer"
)

// codeAPI serves code, storage and calls of a few fixed accounts at latest.
type codeAPI struct {
	code    map[common.Address]hexutil.Bytes
	storage map[common.Address]map[common.Hash]common.Hash
	calls   map[common.Address]hexutil.Bytes // result of any call to the address
}

func (a *codeAPI) GetCode(addr common.Address, block string) (hexutil.Bytes, error) {
	if block != "latest" {
		return nil, errors.New("want latest")
	}
	return a.code[addr], nil
}

func (a *codeAPI) GetStorageAt(addr common.Address, slot common.Hash, block string) (hexutil.Bytes, error) {
	if block != "latest" {
		return nil, errors.New("want latest")
	}
	v := a.storage[addr][slot]
	return v[:], nil
}

func (a *codeAPI) Call(args map[string]any, block string) (hexutil.Bytes, error) {
	to := common.HexToAddress(args["to"].(string))
	if out, ok := a.calls[to]; ok && args["data"] == "0x5c60da1b" {
		return out, nil
	}
	return nil, errors.New("execution reverted")
}

func TestChainReaderAndProxies(t *testing.T) {
	impl := common.HexToAddress("0x1111111111111111111111111111111111111111")
	clone, p1967, beacon, bproxy, plain := common.HexToAddress("0xc1"), common.HexToAddress("0xc2"), common.HexToAddress("0xc3"),
		common.HexToAddress("0xc4"), common.HexToAddress("0xc5")
	api := &codeAPI{
		code: map[common.Address]hexutil.Bytes{
			clone: append(append(common.FromHex("363d3d373d3d3d363d73"), impl[:]...), common.FromHex("5af43d82803e903d91602b57fd5bf3")...),
			p1967: {0x60, 0x00}, bproxy: {0x60, 0x01}, plain: {0x60, 0x02}, beacon: {0x60, 0x03},
		},
		storage: map[common.Address]map[common.Hash]common.Hash{
			p1967:  {common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc"): common.BytesToHash(impl[:])},
			bproxy: {common.HexToHash("0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50"): common.BytesToHash(beacon[:])},
		},
		calls: map[common.Address]hexutil.Bytes{beacon: common.BytesToHash(impl[:]).Bytes()},
	}
	s := serve(t, api)
	ctx := context.Background()
	if code, err := s.CodeAt(ctx, p1967); err != nil || len(code) != 2 {
		t.Fatalf("code %x %v", code, err)
	}
	if v, err := s.StorageAt(ctx, bproxy, common.HexToHash("0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50")); err != nil || common.BytesToAddress(v[12:]) != beacon {
		t.Fatalf("storage %x %v", v, err)
	}
	if _, err := s.CallContract(ctx, plain, []byte{1}); err == nil {
		t.Fatal("reverting call succeeded")
	}
	for addr, want := range map[common.Address]string{clone: "eip1167", p1967: "eip1967", bproxy: "eip1967_beacon", plain: ""} {
		code, _ := s.CodeAt(ctx, addr)
		p, err := explorer.ResolveProxy(ctx, s, addr, code)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case want == "" && p != nil:
			t.Errorf("%s resolved as %s", addr, p.Type)
		case want != "" && (p == nil || p.Type != want || len(p.Implementations) != 1 || p.Implementations[0] != impl):
			t.Errorf("%s: %+v, want %s to %s", addr, p, want, impl)
		}
	}
}
