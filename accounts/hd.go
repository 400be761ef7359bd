// Package accounts holds Ember's account model helpers: HD key derivation
// from BIP-39 mnemonics and the bech32 spellings of addresses.
package accounts

import (
	"crypto/ecdsa"
	"fmt"

	"github.com/btcsuite/btcd/btcutil/hdkeychain"
	"github.com/btcsuite/btcd/chaincfg"
	"github.com/cosmos/go-bip39"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// TestMnemonic is the well-known development mnemonic anvil and Hardhat use.
// Its keys are public: never fund them on a real network.
const TestMnemonic = "test test test test test test test test test test test junk"

// Key is a derived secp256k1 key and its address.
type Key struct {
	Index   uint32
	Private *ecdsa.PrivateKey
	Address common.Address
}

// DeriveKey derives the key at m/44'/60'/0'/0/index from mnemonic (no
// passphrase), the path MetaMask, anvil and Hardhat use.
func DeriveKey(mnemonic string, index uint32) (*Key, error) {
	seed, err := bip39.NewSeedWithErrorChecking(mnemonic, "")
	if err != nil {
		return nil, fmt.Errorf("invalid mnemonic: %w", err)
	}
	master, err := hdkeychain.NewMaster(seed, &chaincfg.MainNetParams)
	if err != nil {
		return nil, err
	}
	path := []uint32{
		hdkeychain.HardenedKeyStart + 44,
		hdkeychain.HardenedKeyStart + 60,
		hdkeychain.HardenedKeyStart + 0,
		0,
		index,
	}
	k := master
	for _, i := range path {
		if k, err = k.Derive(i); err != nil {
			return nil, fmt.Errorf("derive m/44'/60'/0'/0/%d: %w", index, err)
		}
	}
	ec, err := k.ECPrivKey()
	if err != nil {
		return nil, err
	}
	priv, err := crypto.ToECDSA(ec.Serialize())
	if err != nil {
		return nil, err
	}
	return &Key{Index: index, Private: priv, Address: crypto.PubkeyToAddress(priv.PublicKey)}, nil
}

// DeriveKeys derives the first n keys of mnemonic.
func DeriveKeys(mnemonic string, n int) ([]*Key, error) {
	keys := make([]*Key, n)
	for i := range keys {
		k, err := DeriveKey(mnemonic, uint32(i))
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}
