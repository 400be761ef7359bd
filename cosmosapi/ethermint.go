package cosmosapi

import (
	"fmt"
	"strconv"

	authv1beta1 "cosmossdk.io/api/cosmos/auth/v1beta1"
	secp256k1pb "cosmossdk.io/api/cosmos/crypto/secp256k1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
)

// Ethermint's Go types are not published for google.golang.org/protobuf.
// Their two messages are declared here, as in ethermint's .proto files, and
// registered, so JSON encoders resolve the Anys that carry them and gRPC
// reflection describes them:
//
//	message ethermint.types.v1.EthAccount { cosmos.auth.v1beta1.BaseAccount base_account = 1; string code_hash = 2; }
//	message ethermint.crypto.v1.ethsecp256k1.PubKey { bytes key = 1; }
func init() {
	opt := func(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type, msg string) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), JsonName: proto.String(name), Number: proto.Int32(num),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), Type: typ.Enum()}
		if msg != "" {
			f.TypeName = proto.String(msg)
		}
		return f
	}
	files := []*descriptorpb.FileDescriptorProto{{
		Name: proto.String("ethermint/types/v1/account.proto"), Package: proto.String("ethermint.types.v1"), Syntax: proto.String("proto3"),
		Dependency: []string{"cosmos/auth/v1beta1/auth.proto"},
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("EthAccount"), Field: []*descriptorpb.FieldDescriptorProto{
			opt("base_account", 1, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, ".cosmos.auth.v1beta1.BaseAccount"),
			opt("code_hash", 2, descriptorpb.FieldDescriptorProto_TYPE_STRING, ""),
		}}},
	}, {
		Name: proto.String("ethermint/crypto/v1/ethsecp256k1/keys.proto"), Package: proto.String("ethermint.crypto.v1.ethsecp256k1"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("PubKey"), Field: []*descriptorpb.FieldDescriptorProto{
			opt("key", 1, descriptorpb.FieldDescriptorProto_TYPE_BYTES, ""),
		}}},
	}}
	_ = authv1beta1.File_cosmos_auth_v1beta1_auth_proto // the dependency is registered first
	for _, fdp := range files {
		fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
		if err != nil {
			panic(err) // unreachable: a fixed, valid declaration
		}
		if _, err := protoregistry.GlobalFiles.FindFileByPath(fd.Path()); err == nil {
			continue // registered by another copy of these types
		}
		if err := protoregistry.GlobalFiles.RegisterFile(fd); err != nil {
			panic(err)
		}
		if err := protoregistry.GlobalTypes.RegisterMessage(dynamicpb.NewMessageType(fd.Messages().Get(0))); err != nil {
			panic(err)
		}
	}
}

// baseAccount is the protobuf form of the account's Cosmos part.
func baseAccount(acc *accounts.EthAccount) (*authv1beta1.BaseAccount, error) {
	num, err := strconv.ParseUint(acc.BaseAccount.AccountNumber, 10, 64)
	if err != nil {
		return nil, err
	}
	seq, err := strconv.ParseUint(acc.BaseAccount.Sequence, 10, 64)
	if err != nil {
		return nil, err
	}
	ba := &authv1beta1.BaseAccount{Address: acc.BaseAccount.Address, AccountNumber: num, Sequence: seq}
	if pk := acc.BaseAccount.PubKey; pk != nil {
		v, err := proto.Marshal(&secp256k1pb.PubKey{Key: pk.Key})
		if err != nil {
			return nil, err
		}
		ba.PubKey = &anypb.Any{TypeUrl: pk.Type, Value: v}
	}
	return ba, nil
}

// PackEthAccount encodes an account as the Any of an
// ethermint.types.v1.EthAccount, written with protowire around the
// published BaseAccount (the wrapper has two fields).
func PackEthAccount(acc *accounts.EthAccount) (*anypb.Any, error) {
	ba, err := baseAccount(acc)
	if err != nil {
		return nil, err
	}
	inner, err := proto.MarshalOptions{Deterministic: true}.Marshal(ba)
	if err != nil {
		return nil, err
	}
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, inner)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, acc.CodeHash)
	return &anypb.Any{TypeUrl: accounts.EthAccountType, Value: b}, nil
}

// UnpackEthAccount decodes the value of an EthAccount Any.
func UnpackEthAccount(a *anypb.Any) (*authv1beta1.BaseAccount, string, error) {
	if a.GetTypeUrl() != accounts.EthAccountType {
		return nil, "", fmt.Errorf("type %q, want %s", a.GetTypeUrl(), accounts.EthAccountType)
	}
	b := a.Value
	ba := &authv1beta1.BaseAccount{}
	var codeHash string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 || typ != protowire.BytesType {
			return nil, "", fmt.Errorf("malformed EthAccount")
		}
		b = b[n:]
		v, m := protowire.ConsumeBytes(b)
		if m < 0 {
			return nil, "", fmt.Errorf("malformed EthAccount")
		}
		b = b[m:]
		switch num {
		case 1:
			if err := proto.Unmarshal(v, ba); err != nil {
				return nil, "", err
			}
		case 2:
			codeHash = string(v)
		}
	}
	return ba, codeHash, nil
}
