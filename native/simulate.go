package native

import (
	"math/big"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	signingv1beta1 "cosmossdk.io/api/cosmos/tx/signing/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
)

// sdkPubKeyType is the Cosmos SDK's secp256k1 key type, which cosmjs puts
// in the tx it simulates (it knows no other); the key bytes are the same.
const sdkPubKeyType = "/cosmos.crypto.secp256k1.PubKey"

// Simulation is a tx as a client simulates it, before signing.
type Simulation struct {
	// Tx is the tx as it would be signed: Raw is its size upper bound (a
	// 65-byte signature, the key, a fee and gas limit as large as any), so
	// Tx.GasUsed() is at least the gas the signed tx is charged.
	Tx *Tx
	// GasWanted is the gas limit the client put in (0 when none yet).
	GasWanted uint64
}

// DecodeSimulation parses the tx of a simulate request (Cosmos SDK
// Simulate): a TxRaw or Tx, possibly unsigned, with a key of the SDK's
// secp256k1 type or Ember's, and no fee yet. The stateless checks of
// Decode apply to its messages, memo and signer.
func DecodeSimulation(raw []byte, prefix, denom string) (*Simulation, error) {
	var txRaw txv1beta1.TxRaw
	if err := proto.Unmarshal(raw, &txRaw); err != nil {
		return nil, module.SDKError(module.CodeTxDecode, "TxRaw: %v", err)
	}
	var auth txv1beta1.AuthInfo
	if err := proto.Unmarshal(txRaw.AuthInfoBytes, &auth); err != nil {
		return nil, module.SDKError(module.CodeTxDecode, "AuthInfo: %v", err)
	}
	if len(auth.SignerInfos) != 1 {
		return nil, module.SDKError(module.CodeTooManySignatures, "native transactions have exactly one signer; got %d signer infos", len(auth.SignerInfos))
	}
	si := auth.SignerInfos[0]
	if pk := si.PublicKey; pk != nil && pk.TypeUrl == sdkPubKeyType {
		pk.TypeUrl = PubKeyType
	}
	si.ModeInfo = &txv1beta1.ModeInfo{Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{Mode: signingv1beta1.SignMode_SIGN_MODE_DIRECT}}}
	fee := new(big.Int)
	var wanted uint64
	if auth.Fee != nil {
		var err error
		if fee, err = module.CoinsAmount(auth.Fee.Amount, denom); err != nil {
			return nil, err
		}
		wanted = auth.Fee.GasLimit
	}
	room := new(big.Int).Lsh(big.NewInt(1), 128)
	auth.Fee = &txv1beta1.Fee{GasLimit: 1 << 62, Amount: []*basev1beta1.Coin{Coin(room, denom)}}
	auth.Tip = nil
	det := proto.MarshalOptions{Deterministic: true}
	authBytes, err := det.Marshal(&auth)
	if err != nil {
		return nil, module.SDKError(module.CodeTxDecode, "AuthInfo: %v", err)
	}
	signed, err := det.Marshal(&txv1beta1.TxRaw{BodyBytes: txRaw.BodyBytes, AuthInfoBytes: authBytes, Signatures: [][]byte{make([]byte, 65)}})
	if err != nil {
		return nil, module.SDKError(module.CodeTxDecode, "TxRaw: %v", err)
	}
	tx, err := Decode(signed, prefix, denom)
	if err != nil {
		return nil, err
	}
	tx.Fee, tx.GasLimit = fee, wanted
	return &Simulation{Tx: tx, GasWanted: wanted}, nil
}

// CheckSimulation runs the stateful checks a simulated tx can run without
// its signature and fee: the account exists, the key (given or recorded)
// is the signer's, the sequence is between the account's (stateNonce) and
// the next it can sign (pending), the balance covers the fee given and the
// amounts, and the messages' preconditions hold.
func CheckSimulation(st module.Reader, tx *Tx, env *module.Env, pending uint64) error {
	acc, ok := accounts.ReadNative(st, tx.Signer)
	if !ok {
		return module.SDKError(module.CodeUnknownAddress, "account %s does not exist", accounts.Bech32(env.Prefix, tx.Signer))
	}
	if tx.PubKey == nil && acc.PubKey == nil {
		return module.SDKError(module.CodeInvalidPubKey, "pubkey on account is not set")
	}
	if nonce := st.GetNonce(tx.Signer); tx.Sequence < nonce || tx.Sequence > pending {
		return SequenceError(pending, tx.Sequence)
	}
	if bal := st.GetBalance(tx.Signer).ToBig(); bal.Cmp(tx.Spend()) < 0 {
		return FundsError(bal, tx.Spend(), env.Denom)
	}
	return CheckMsgs(st, tx)
}
