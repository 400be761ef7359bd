package cosmosapi

import (
	"context"
	"strings"
	"testing"

	authv1beta1 "cosmossdk.io/api/cosmos/auth/v1beta1"
	abci "github.com/cometbft/cometbft/abci/types"
	"google.golang.org/protobuf/proto"
)

// prefixOnly answers the prefix; the calls below read nothing else.
type prefixOnly struct{ Backend }

func (prefixOnly) Prefix() string { return "ember" }

// TestABCIQuery: method paths dispatch with protobuf bytes, other paths are
// left to the app, and errors carry the SDK's ABCI codes with the gRPC
// status in the log, which cosmjs matches.
func TestABCIQuery(t *testing.T) {
	r := NewRouter(func() int64 { return 42 })
	Register(r, prefixOnly{})
	if _, ok := r.ABCIQuery(context.Background(), &abci.RequestQuery{Path: "/ember/validators"}); ok {
		t.Fatal("an /ember/ path was taken")
	}
	res, ok := r.ABCIQuery(context.Background(), &abci.RequestQuery{Path: "/cosmos.auth.v1beta1.Query/Bech32Prefix"})
	var out authv1beta1.Bech32PrefixResponse
	if !ok || res.Code != 0 || res.Height != 42 || proto.Unmarshal(res.Value, &out) != nil || out.Bech32Prefix != "ember" {
		t.Fatalf("Bech32Prefix: %v %+v %v", ok, res, &out)
	}
	data, _ := proto.Marshal(&authv1beta1.QueryAccountRequest{Address: "ember1nope"})
	res, _ = r.ABCIQuery(context.Background(), &abci.RequestQuery{Path: "/cosmos.auth.v1beta1.Query/Account", Data: data})
	if res.Code != sdkInvalidRequest || res.Codespace != "sdk" || !strings.HasPrefix(res.Log, "rpc error: code = InvalidArgument desc = ") || !strings.HasSuffix(res.Log, ": invalid request") {
		t.Fatalf("bad address: %+v", res)
	}
	res, _ = r.ABCIQuery(context.Background(), &abci.RequestQuery{Path: "/cosmos.auth.v1beta1.Query/Account", Data: []byte{0xff}})
	if res.Code != sdkInvalidRequest {
		t.Fatalf("bad request bytes: %+v", res)
	}
	res, _ = r.ABCIQuery(context.Background(), &abci.RequestQuery{Path: "/cosmos.auth.v1beta1.Query/Accounts"})
	if res.Code != sdkUnknownRequest || !strings.Contains(res.Log, "code = Unimplemented") {
		t.Fatalf("Accounts: %+v", res)
	}
}
