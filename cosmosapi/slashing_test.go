package cosmosapi

import (
	"context"
	"math/big"
	"testing"
	"time"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/types"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/slashing"
)

// signers is a staking view in which every address is a validator
// operated by itself, never jailed.
var signers = slashing.Staking{
	OperatorByCons:  func(_ module.Reader, c common.Address) (common.Address, bool) { return c, true },
	IsJailed:        func(module.Reader, common.Address) bool { return false },
	ValidatorTokens: func(module.Reader, common.Address) (*big.Int, dec.Dec, bool) { return nil, dec.Zero(), true },
}

// TestSlashingQueries: params, one signing info by valcons address, and
// the signing infos page by page, over abci_query's protobuf bytes.
func TestSlashingQueries(t *testing.T) {
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	if err := slashing.Init(st, slashing.DefaultParams()); err != nil {
		t.Fatal(err)
	}
	votes := []module.Vote{{Validator: common.Address{1}, Signed: true}, {Validator: common.Address{2}}, {Validator: common.Address{3}, Signed: true}}
	b := &module.Block{Env: &module.Env{Prefix: "ember", Height: 2, Time: time.Unix(1000, 0)}, Info: &module.BlockInfo{Votes: votes}, Events: module.NewEvents("ember", "aember")}
	if err := (slashing.Module{Staking: signers}).BeginBlock(st, b); err != nil {
		t.Fatal(err)
	}
	r := NewRouter(func() int64 { return 7 })
	Register(r, stateBackend{st: st})
	call := func(path string, req, out proto.Message) *abci.ResponseQuery {
		t.Helper()
		data, _ := proto.Marshal(req)
		res, ok := r.ABCIQuery(context.Background(), &abci.RequestQuery{Path: "/cosmos.slashing.v1beta1.Query/" + path, Data: data})
		if !ok {
			t.Fatalf("%s not registered", path)
		}
		if res.Code == 0 {
			if err := proto.Unmarshal(res.Value, out); err != nil {
				t.Fatal(err)
			}
		}
		return res
	}
	var params slashingv1beta1.QueryParamsResponse
	call("Params", &slashingv1beta1.QueryParamsRequest{}, &params)
	p := params.Params
	if p.SignedBlocksWindow != 100 || string(p.MinSignedPerWindow) != "500000000000000000" || p.DowntimeJailDuration.AsDuration() != 600*time.Second ||
		string(p.SlashFractionDoubleSign) != "50000000000000000" || string(p.SlashFractionDowntime) != "10000000000000000" {
		t.Fatalf("params %v", p)
	}
	two, _ := accounts.NewPrefixes("ember").Encode(accounts.KindConsensus, common.Address{2}.Bytes())
	var one slashingv1beta1.QuerySigningInfoResponse
	call("SigningInfo", &slashingv1beta1.QuerySigningInfoRequest{ConsAddress: two}, &one)
	if i := one.ValSigningInfo; i.Address != two || i.StartHeight != 2 || i.IndexOffset != 1 || i.MissedBlocksCounter != 1 || i.Tombstoned || i.JailedUntil.AsTime() != time.Unix(0, 0).UTC() {
		t.Fatalf("signing info %v", i)
	}
	unknown, _ := accounts.NewPrefixes("ember").Encode(accounts.KindConsensus, common.Address{9}.Bytes())
	if res := call("SigningInfo", &slashingv1beta1.QuerySigningInfoRequest{ConsAddress: unknown}, &one); res.Code != sdkKeyNotFound {
		t.Fatalf("unknown validator: %+v", res)
	}
	if res := call("SigningInfo", &slashingv1beta1.QuerySigningInfoRequest{ConsAddress: "ember1nope"}, &one); res.Code != sdkInvalidRequest {
		t.Fatalf("bad address: %+v", res)
	}
	var page slashingv1beta1.QuerySigningInfosResponse
	call("SigningInfos", &slashingv1beta1.QuerySigningInfosRequest{Pagination: &queryv1beta1.PageRequest{Limit: 2, CountTotal: true}}, &page)
	if len(page.Info) != 2 || page.Info[1].Address != two || page.Pagination.Total != 3 || len(page.Pagination.NextKey) != common.AddressLength {
		t.Fatalf("first page %v", &page)
	}
	var rest slashingv1beta1.QuerySigningInfosResponse
	call("SigningInfos", &slashingv1beta1.QuerySigningInfosRequest{Pagination: &queryv1beta1.PageRequest{Key: page.Pagination.NextKey}}, &rest)
	if len(rest.Info) != 1 || rest.Info[0].StartHeight != 2 || rest.Pagination.NextKey != nil || rest.Pagination.Total != 0 {
		t.Fatalf("second page %v", &rest)
	}
	if res := call("SigningInfos", &slashingv1beta1.QuerySigningInfosRequest{Pagination: &queryv1beta1.PageRequest{Key: page.Pagination.NextKey, Offset: 1}}, &rest); res.Code != sdkInvalidRequest {
		t.Fatalf("key and offset: %+v", res)
	}
}
