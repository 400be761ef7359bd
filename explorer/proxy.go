package explorer

import (
	"bytes"
	"context"

	"github.com/ethereum/go-ethereum/common"
)

// Proxy is what a contract delegates to: Blockscout's proxy_type and its
// implementations.
type Proxy struct {
	Type            string // eip1167, eip1967, eip1967_beacon, eip1822, eip1967_oz
	Implementations []common.Address
}

// Storage slots the proxy standards keep their targets in.
var (
	// EIP-1967: bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1).
	eip1967ImplSlot = common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc")
	// EIP-1967: bytes32(uint256(keccak256("eip1967.proxy.beacon")) - 1).
	eip1967BeaconSlot = common.HexToHash("0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50")
	// EIP-1822 (UUPS): keccak256("PROXIABLE").
	eip1822Slot = common.HexToHash("0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7")
	// OpenZeppelin's pre-1967 proxies: keccak256("org.zeppelinos.proxy.implementation").
	ozImplSlot = common.HexToHash("0x7050c9e0f4ca769c69bd3a8ef740bc37934f8e2c036e5a723fd8ee048ed3f8c3")

	// EIP-1167 minimal proxy runtime code around the 20-byte target, and
	// its PUSH0 variant (ERC-7511).
	eip1167Prefix     = common.FromHex("363d3d373d3d3d363d73")
	eip1167Suffix     = common.FromHex("5af43d82803e903d91602b57fd5bf3")
	eip7511Prefix     = common.FromHex("365f5f375f5f365f73")
	eip7511Suffix     = common.FromHex("5af43d5f5f3e5f3d91602a57fd5bf3")
	beaconImplementer = common.FromHex("5c60da1b") // implementation()
)

// ResolveProxy tells which standard proxy the contract at addr (whose
// runtime code is code) is and where it points; nil when it is none.
func ResolveProxy(ctx context.Context, r ChainReader, addr common.Address, code []byte) (*Proxy, error) {
	if len(code) == 0 {
		return nil, nil
	}
	for _, m := range [][2][]byte{{eip1167Prefix, eip1167Suffix}, {eip7511Prefix, eip7511Suffix}} {
		if len(code) == len(m[0])+20+len(m[1]) && bytes.HasPrefix(code, m[0]) && bytes.HasSuffix(code, m[1]) {
			return &Proxy{Type: "eip1167", Implementations: []common.Address{common.BytesToAddress(code[len(m[0]) : len(m[0])+20])}}, nil
		}
	}
	slot := func(s common.Hash) (common.Address, bool, error) {
		v, err := r.StorageAt(ctx, addr, s)
		if err != nil || v == (common.Hash{}) {
			return common.Address{}, false, err
		}
		return common.BytesToAddress(v[12:]), true, nil
	}
	if impl, ok, err := slot(eip1967ImplSlot); err != nil || ok {
		return &Proxy{Type: "eip1967", Implementations: []common.Address{impl}}, err
	}
	beacon, ok, err := slot(eip1967BeaconSlot)
	if err != nil {
		return nil, err
	}
	if ok {
		out, err := r.CallContract(ctx, beacon, beaconImplementer)
		if err != nil || len(out) < 32 {
			return &Proxy{Type: "eip1967_beacon"}, nil // a beacon that does not answer: no implementation known
		}
		return &Proxy{Type: "eip1967_beacon", Implementations: []common.Address{common.BytesToAddress(out[12:32])}}, nil
	}
	if impl, ok, err := slot(eip1822Slot); err != nil || ok {
		return &Proxy{Type: "eip1822", Implementations: []common.Address{impl}}, err
	}
	if impl, ok, err := slot(ozImplSlot); err != nil || ok {
		return &Proxy{Type: "eip1967_oz", Implementations: []common.Address{impl}}, err
	}
	return nil, nil
}
