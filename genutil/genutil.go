// Package genutil holds genesis transactions (gentxs): the
// MsgCreateValidator each operator of a new network signs offline, as the
// Cosmos SDK's x/genutil has them. A gentx is written as the SDK writes one,
// the protobuf JSON of a cosmos.tx.v1beta1.Tx, collected into
// app_state.genutil.gen_txs, and executed at InitChain after every module's
// InitGenesis through the ordinary native execution path (native.Execute),
// at height 0: the signature is over account number 0 and the fee may be
// zero, as the SDK's genesis ante handler allows.
package genutil

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	secp256k1pb "cosmossdk.io/api/cosmos/crypto/secp256k1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/emberchain/ember/native"
)

// Name is the module's app_state section.
const Name = "genutil"

// GenesisState is app_state.genutil: the signed genesis transactions, each
// the JSON of a cosmos.tx.v1beta1.Tx.
type GenesisState struct {
	GenTxs []json.RawMessage `json:"gen_txs"`
}

// resolver resolves the Anys of a gentx: the registered Cosmos types, and
// the signer's Ethermint key, whose message has the shape of
// cosmos.crypto.secp256k1.PubKey (bytes key = 1) under another name.
type resolver struct{}

var ethPubKey = (&secp256k1pb.PubKey{}).ProtoReflect().Type()

func (resolver) FindMessageByName(n protoreflect.FullName) (protoreflect.MessageType, error) {
	if "/"+string(n) == native.PubKeyType {
		return ethPubKey, nil
	}
	return protoregistry.GlobalTypes.FindMessageByName(n)
}

func (r resolver) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	return r.FindMessageByName(protoreflect.FullName(url[strings.LastIndexByte(url, '/')+1:]))
}

func (resolver) FindExtensionByName(n protoreflect.FullName) (protoreflect.ExtensionType, error) {
	return protoregistry.GlobalTypes.FindExtensionByName(n)
}

func (resolver) FindExtensionByNumber(m protoreflect.FullName, f protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	return protoregistry.GlobalTypes.FindExtensionByNumber(m, f)
}

// EncodeJSON turns signed TxRaw bytes into the JSON of the Tx they encode,
// with the proto field names, as the SDK writes a gentx file.
func EncodeJSON(raw []byte) (json.RawMessage, error) {
	var txRaw txv1beta1.TxRaw
	if err := proto.Unmarshal(raw, &txRaw); err != nil {
		return nil, fmt.Errorf("decode TxRaw: %w", err)
	}
	tx := &txv1beta1.Tx{Body: new(txv1beta1.TxBody), AuthInfo: new(txv1beta1.AuthInfo), Signatures: txRaw.Signatures}
	if err := proto.Unmarshal(txRaw.BodyBytes, tx.Body); err != nil {
		return nil, fmt.Errorf("decode TxBody: %w", err)
	}
	if err := proto.Unmarshal(txRaw.AuthInfoBytes, tx.AuthInfo); err != nil {
		return nil, fmt.Errorf("decode AuthInfo: %w", err)
	}
	j, err := protojson.MarshalOptions{UseProtoNames: true, Resolver: resolver{}}.Marshal(tx)
	if err != nil {
		return nil, err
	}
	// protojson varies its spacing on purpose; compact JSON is one text.
	var buf bytes.Buffer
	if err := json.Compact(&buf, j); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// DecodeJSON turns a gentx's JSON back into the TxRaw bytes that were
// signed: body and auth info are re-encoded deterministically, as they were
// when signed (a gentx whose JSON was edited fails its signature check).
func DecodeJSON(j json.RawMessage) ([]byte, error) {
	var tx txv1beta1.Tx
	if err := (protojson.UnmarshalOptions{Resolver: resolver{}}).Unmarshal(j, &tx); err != nil {
		return nil, fmt.Errorf("decode gentx JSON: %w", err)
	}
	if tx.Body == nil || tx.AuthInfo == nil {
		return nil, fmt.Errorf("decode gentx JSON: body and auth_info are required")
	}
	det := proto.MarshalOptions{Deterministic: true}
	body, err := det.Marshal(tx.Body)
	if err != nil {
		return nil, err
	}
	auth, err := det.Marshal(tx.AuthInfo)
	if err != nil {
		return nil, err
	}
	return det.Marshal(&txv1beta1.TxRaw{BodyBytes: body, AuthInfoBytes: auth, Signatures: tx.Signatures})
}
