// Package native decodes, verifies, builds and executes Ember's native
// transactions: Cosmos SDK transactions in the protobuf wire format
// (cosmos.tx.v1beta1.TxRaw, SIGN_MODE_DIRECT), signed with an
// eth_secp256k1 key over keccak256(SignDoc bytes) as Ethermint signs them.
// The message, tx and key types are the published Go protobuf types of
// cosmossdk.io/api; nothing here hand-encodes a Cosmos type except the
// two-field ethermint EthAccount wrapper (see grpcapi).
//
// A native transaction is not an EVM transaction: it has no EVM hash, no
// receipt and is not in the EVM block, but it runs in its place in the
// CometBFT block, on the same state, and its sequence is the sender's EVM
// nonce.
//
// This package holds the transaction (decoding, signature, ante checks,
// fee, gas); its messages are the modules' (Modules, see package module):
// each is decoded, checked and executed by the handler its module
// registered for its type URL.
package native

import (
	"bytes"
	"math/big"

	secp256k1pb "cosmossdk.io/api/cosmos/crypto/secp256k1"
	signingv1beta1 "cosmossdk.io/api/cosmos/tx/signing/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/module"
)

// Type URLs of the keys.
const (
	// PubKeyType is the signer's key: 33-byte compressed secp256k1 under
	// Ethermint's name. Its message (bytes key = 1) has the wire shape of
	// cosmos.crypto.secp256k1.PubKey, whose Go type marshals it.
	PubKeyType = "/ethermint.crypto.v1.ethsecp256k1.PubKey"
)

// Limits.
const (
	MaxTxSize      = 128 * 1024 // as for EVM transactions
	MaxMemoChars   = 256        // Cosmos's default max_memo_characters
	MaxMsgs        = 16
	firstByteOfRaw = 0x0a // TxRaw starts with field 1 (body_bytes), wire type 2
)

// IsNative tells whether raw looks like a TxRaw rather than an Ethereum
// transaction: TxRaw starts with 0x0a (field 1, length-delimited), which is
// neither an RLP list (legacy tx, >= 0xc0) nor an EIP-2718 type in use.
func IsNative(raw []byte) bool { return len(raw) > 0 && raw[0] == firstByteOfRaw }

// Tx is a decoded native transaction.
type Tx struct {
	Raw           []byte
	BodyBytes     []byte
	AuthInfoBytes []byte
	Body          *txv1beta1.TxBody
	Msgs          []*module.Msg
	// PubKey is the signer's 33-byte compressed key from signer_infos; nil
	// when the tx leaves it out (allowed once the chain has recorded it).
	PubKey    []byte
	Sequence  uint64
	GasLimit  uint64
	Fee       *big.Int // in the base denomination
	Signature []byte   // 64 bytes r||s (a 65th byte, v, is accepted and ignored)
	// Signer is the address every message names as its signer.
	Signer common.Address
}

// Decode parses raw into a Tx and runs the stateless checks: one signer in
// SIGN_MODE_DIRECT with an eth_secp256k1 key, one signature, known
// messages all signed by that signer, a fee in denom only, size and memo
// limits. prefix is the chain's bech32 prefix.
func Decode(raw []byte, prefix, denom string) (*Tx, error) {
	if len(raw) > MaxTxSize {
		return nil, module.SDKError(module.CodeTxTooLarge, "tx size %d bytes exceeds %d", len(raw), MaxTxSize)
	}
	var txRaw txv1beta1.TxRaw
	if err := module.StrictUnmarshal(raw, &txRaw); err != nil {
		return nil, module.SDKError(module.CodeTxDecode, "TxRaw: %v", err)
	}
	// Re-encoding must give the same bytes, so one tx has one hash.
	if again, err := (proto.MarshalOptions{Deterministic: true}).Marshal(&txRaw); err != nil || !bytes.Equal(again, raw) {
		return nil, module.SDKError(module.CodeTxDecode, "TxRaw is not in canonical encoding")
	}
	tx := &Tx{Raw: raw, BodyBytes: txRaw.BodyBytes, AuthInfoBytes: txRaw.AuthInfoBytes}
	var body txv1beta1.TxBody
	if err := module.StrictUnmarshal(txRaw.BodyBytes, &body); err != nil {
		return nil, module.SDKError(module.CodeTxDecode, "TxBody: %v", err)
	}
	tx.Body = &body
	if len(body.ExtensionOptions) > 0 || len(body.NonCriticalExtensionOptions) > 0 {
		return nil, module.SDKError(module.CodeUnknownRequest, "extension options are not supported")
	}
	if n := len([]rune(body.Memo)); n > MaxMemoChars {
		return nil, module.SDKError(module.CodeMemoTooLarge, "maximum number of characters is %d but received %d characters", MaxMemoChars, n)
	}
	var auth txv1beta1.AuthInfo
	if err := module.StrictUnmarshal(txRaw.AuthInfoBytes, &auth); err != nil {
		return nil, module.SDKError(module.CodeTxDecode, "AuthInfo: %v", err)
	}
	if len(txRaw.Signatures) == 0 || len(auth.SignerInfos) == 0 {
		return nil, module.SDKError(module.CodeNoSignatures, "no signatures supplied")
	}
	if len(txRaw.Signatures) != 1 || len(auth.SignerInfos) != 1 {
		return nil, module.SDKError(module.CodeTooManySignatures, "native transactions have exactly one signer; got %d signer infos and %d signatures", len(auth.SignerInfos), len(txRaw.Signatures))
	}
	si := auth.SignerInfos[0]
	single := si.GetModeInfo().GetSingle()
	if single == nil || single.Mode != signingv1beta1.SignMode_SIGN_MODE_DIRECT {
		return nil, module.SDKError(module.CodeInvalidRequest, "unsupported sign mode: want a single signer in SIGN_MODE_DIRECT")
	}
	if pk := si.PublicKey; pk != nil {
		if pk.TypeUrl != PubKeyType {
			return nil, module.SDKError(module.CodeInvalidPubKey, "public key type %q: want %s", pk.TypeUrl, PubKeyType)
		}
		var key secp256k1pb.PubKey
		if err := module.StrictUnmarshal(pk.Value, &key); err != nil {
			return nil, module.SDKError(module.CodeInvalidPubKey, "public key: %v", err)
		}
		if _, err := crypto.DecompressPubkey(key.Key); err != nil || len(key.Key) != 33 {
			return nil, module.SDKError(module.CodeInvalidPubKey, "public key is not a 33-byte compressed secp256k1 key")
		}
		tx.PubKey = key.Key
	}
	tx.Sequence = si.Sequence
	sig := txRaw.Signatures[0]
	if len(sig) != 64 && len(sig) != 65 {
		return nil, module.SDKError(module.CodeUnauthorized, "signature has %d bytes: want 64 (r||s) or 65 (r||s||v)", len(sig))
	}
	tx.Signature = sig[:64]
	if auth.Fee == nil {
		return nil, module.SDKError(module.CodeInsufficientFee, "no fee")
	}
	if auth.Fee.Payer != "" || auth.Fee.Granter != "" || auth.Tip != nil {
		return nil, module.SDKError(module.CodeInvalidRequest, "fee payer, fee granter and tips are not supported")
	}
	tx.GasLimit = auth.Fee.GasLimit
	fee, err := module.CoinsAmount(auth.Fee.Amount, denom)
	if err != nil {
		return nil, err
	}
	tx.Fee = fee
	if len(body.Messages) == 0 {
		return nil, module.SDKError(module.CodeInvalidRequest, "must contain at least one message")
	}
	if len(body.Messages) > MaxMsgs {
		return nil, module.SDKError(module.CodeInvalidRequest, "too many messages: %d, at most %d", len(body.Messages), MaxMsgs)
	}
	for i, a := range body.Messages {
		m, err := decodeMsg(a, prefix, denom)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			tx.Signer = m.Signer
		} else if m.Signer != tx.Signer {
			return nil, module.SDKError(module.CodeInvalidSigner, "message %d is signed by %s, message 0 by %s: one signer per transaction", i, m.Signer.Hex(), tx.Signer.Hex())
		}
		tx.Msgs = append(tx.Msgs, m)
	}
	if tx.PubKey != nil {
		if addr := PubKeyAddress(tx.PubKey); addr != tx.Signer {
			return nil, module.SDKError(module.CodeInvalidPubKey, "public key address %s does not match the signer %s", addr.Hex(), tx.Signer.Hex())
		}
	}
	return tx, nil
}

// SignBytes are the SIGN_MODE_DIRECT bytes: the SignDoc of the tx's body and
// auth info bytes, the chain id and the signer's account number.
func SignBytes(bodyBytes, authInfoBytes []byte, chainID string, accountNumber uint64) []byte {
	doc := &txv1beta1.SignDoc{BodyBytes: bodyBytes, AuthInfoBytes: authInfoBytes, ChainId: chainID, AccountNumber: accountNumber}
	b, err := (proto.MarshalOptions{Deterministic: true}).Marshal(doc)
	if err != nil {
		panic(err) // unreachable: bytes, a string and an integer
	}
	return b
}

// SignHash is what the key signs: keccak256 of the sign bytes, as Ethermint.
func SignHash(signBytes []byte) []byte { return crypto.Keccak256(signBytes) }

// Verify checks the signature against pub (33-byte compressed) for the
// given chain id and account number.
func (tx *Tx) Verify(pub []byte, chainID string, accountNumber uint64) bool {
	hash := SignHash(SignBytes(tx.BodyBytes, tx.AuthInfoBytes, chainID, accountNumber))
	return crypto.VerifySignature(pub, hash, tx.Signature)
}

// PubKeyAddress is the account address of a compressed secp256k1 key.
func PubKeyAddress(pub []byte) common.Address {
	k, err := crypto.DecompressPubkey(pub)
	if err != nil {
		return common.Address{}
	}
	return crypto.PubkeyToAddress(*k)
}

// PackPubKey wraps a compressed key in an Any under PubKeyType.
func PackPubKey(pub []byte) *anypb.Any {
	v, _ := proto.Marshal(&secp256k1pb.PubKey{Key: pub})
	return &anypb.Any{TypeUrl: PubKeyType, Value: v}
}

// Spend is what the tx may take from the signer's balance: the fee and the
// amounts its messages send or bond.
func (tx *Tx) Spend() *big.Int {
	total := new(big.Int).Set(tx.Fee)
	for _, m := range tx.Msgs {
		total.Add(total, m.Spend())
	}
	return total
}
