package accounts

import "github.com/ethereum/go-ethereum/common"

// SetPubKey records the 33-byte compressed key that signed addr's first
// native transaction, unless a key is recorded already; addr gets a number
// first if it has none. Native transactions call it as their ante handler
// sets the public key.
func SetPubKey(st StateWriter, addr common.Address, compressed []byte) {
	if info := st.GetState(RegistryAddress, slotOf(addr, 1)); info == (common.Hash{}) {
		register(st, addr)
	}
	setPubKey(st, addr, compressed)
}
