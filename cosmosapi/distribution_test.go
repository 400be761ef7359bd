package cosmosapi

import (
	"context"
	"math/big"
	"testing"

	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	mintv1beta1 "cosmossdk.io/api/cosmos/mint/v1beta1"
	"github.com/cometbft/cometbft/crypto/ed25519"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/distribution"
	"github.com/emberchain/ember/mint"
	"github.com/emberchain/ember/module"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
)

// stateBackend serves a copy of one state.
type stateBackend struct {
	Backend
	st *state.StateDB
}

func (stateBackend) Prefix() string { return "ember" }
func (stateBackend) Denom() string  { return "aember" }
func (b stateBackend) StateAt(int64) (*state.StateDB, int64, error) {
	return b.st.Copy(), 7, nil
}

// economyState: one validator with 10 tokens of its own and 30 of a
// delegator's, which earned a block's 1000 wei of fees (2% community tax)
// and whose validator was slashed 10% after; mint at 13%.
func economyState(t *testing.T) (*state.StateDB, common.Address, common.Address) {
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	op, del := common.Address{0xa0}, common.Address{0xd0}
	e18 := new(big.Int).Exp(big.NewInt(10), big.NewInt(18), nil)
	for _, a := range []common.Address{op, del} {
		st.AddBalance(a, uint256.MustFromBig(new(big.Int).Mul(e18, big.NewInt(100))), tracing.BalanceChangeUnspecified)
	}
	bank.InitSupply(st, new(big.Int).Mul(e18, big.NewInt(200)))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(distribution.Init(st, distribution.DefaultParams()))
	must(mint.Init(st, mint.DefaultParams(), mint.Minter{Inflation: dec.MustParse("0.13"), AnnualProvisions: dec.MustParse("26")}))
	k := native.Distribution
	sk := &staking.Keeper{Hooks: k} // fires distribution's hooks, as the chain's keeper does
	pub := ed25519.GenPrivKey().PubKey().Bytes()
	v := &staking.Validator{Operator: op, HasOperator: true, ConsPubKey: pub, Tokens: new(big.Int), DelegatorShares: dec.Zero(),
		Description: staking.Description{Moniker: "v"}, Commission: staking.Commission{Rate: dec.Zero(), MaxRate: dec.Zero(), MaxChangeRate: dec.Zero()},
		MinSelfDelegation: big.NewInt(1), RewardAddress: op}
	must(sk.Create(st, v, new(big.Int).Mul(e18, big.NewInt(10))))
	_, err := sk.Delegate(st, del, op, new(big.Int).Mul(e18, big.NewInt(30)))
	must(err)
	st.AddBalance(distribution.FeeCollector, uint256.NewInt(1000), tracing.BalanceChangeUnspecified)
	v, _ = staking.Get(st, op)
	b := &module.Block{Env: &module.Env{Height: 2}, Info: &module.BlockInfo{Votes: []module.Vote{{Validator: v.ConsAddress(), Power: 40, Signed: true}}}, Events: module.NewEvents("ember", "aember")}
	must(k.BeginBlock(st, b))
	must(k.BeforeValidatorSlashed(st, op, dec.MustParse("0.1")))
	return st, op, del
}

// TestDistributionQueries: each method answers from the records, through
// abci_query's method paths with protobuf bytes.
func TestDistributionQueries(t *testing.T) {
	st, op, del := economyState(t)
	r := NewRouter(func() int64 { return 7 })
	Register(r, stateBackend{st: st})
	valoper, _ := accounts.NewPrefixes("ember").Encode(accounts.KindValidator, op[:])
	delAcc := accounts.Bech32("ember", del)
	call := func(path string, req, out proto.Message) {
		t.Helper()
		res, err := r.Call(context.Background(), path, func(m proto.Message) error { proto.Merge(m, req); return nil })
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		proto.Merge(out, res)
	}
	// 1000 − 2% = 980 to the validator (no commission on this branch's
	// staking), 20 to the community. Per token that is 980 / 40·10^18,
	// 0.000000000000000024 at 18 places (the SDK's truncation); the
	// delegator's 30·10^18 tokens earn 720, the operator's 10·10^18 240.
	var rewards distrv1beta1.QueryDelegationRewardsResponse
	call("/cosmos.distribution.v1beta1.Query/DelegationRewards", &distrv1beta1.QueryDelegationRewardsRequest{DelegatorAddress: delAcc, ValidatorAddress: valoper}, &rewards)
	if len(rewards.Rewards) != 1 || rewards.Rewards[0].Amount != dec.MustParse("720").Raw().String() || rewards.Rewards[0].Denom != "aember" {
		t.Fatalf("delegation rewards %v", rewards.Rewards)
	}
	var total distrv1beta1.QueryDelegationTotalRewardsResponse
	call("/cosmos.distribution.v1beta1.Query/DelegationTotalRewards", &distrv1beta1.QueryDelegationTotalRewardsRequest{DelegatorAddress: delAcc}, &total)
	if len(total.Rewards) != 1 || total.Rewards[0].ValidatorAddress != valoper || total.Total[0].Amount != rewards.Rewards[0].Amount {
		t.Fatalf("total rewards %v", &total)
	}
	var info distrv1beta1.QueryValidatorDistributionInfoResponse
	call("/cosmos.distribution.v1beta1.Query/ValidatorDistributionInfo", &distrv1beta1.QueryValidatorDistributionInfoRequest{ValidatorAddress: valoper}, &info)
	if info.SelfBondRewards[0].Amount != dec.MustParse("240").Raw().String() || len(info.Commission) != 0 || info.OperatorAddress != accounts.Bech32("ember", op) {
		t.Fatalf("validator info %v", &info)
	}
	var out distrv1beta1.QueryValidatorOutstandingRewardsResponse
	call("/cosmos.distribution.v1beta1.Query/ValidatorOutstandingRewards", &distrv1beta1.QueryValidatorOutstandingRewardsRequest{ValidatorAddress: valoper}, &out)
	if out.Rewards.Rewards[0].Amount != dec.MustParse("980").Raw().String() {
		t.Fatalf("outstanding %v", &out)
	}
	var pool distrv1beta1.QueryCommunityPoolResponse
	call("/cosmos.distribution.v1beta1.Query/CommunityPool", &distrv1beta1.QueryCommunityPoolRequest{}, &pool)
	if pool.Pool[0].Amount != dec.MustParse("20").Raw().String() {
		t.Fatalf("community pool %v", &pool)
	}
	var slashes distrv1beta1.QueryValidatorSlashesResponse
	call("/cosmos.distribution.v1beta1.Query/ValidatorSlashes", &distrv1beta1.QueryValidatorSlashesRequest{ValidatorAddress: valoper, EndingHeight: 10}, &slashes)
	if len(slashes.Slashes) != 1 || slashes.Slashes[0].Fraction != dec.MustParse("0.1").Raw().String() {
		t.Fatalf("slashes %v", &slashes)
	}
	var vals distrv1beta1.QueryDelegatorValidatorsResponse
	call("/cosmos.distribution.v1beta1.Query/DelegatorValidators", &distrv1beta1.QueryDelegatorValidatorsRequest{DelegatorAddress: delAcc}, &vals)
	var wa distrv1beta1.QueryDelegatorWithdrawAddressResponse
	call("/cosmos.distribution.v1beta1.Query/DelegatorWithdrawAddress", &distrv1beta1.QueryDelegatorWithdrawAddressRequest{DelegatorAddress: delAcc}, &wa)
	if len(vals.Validators) != 1 || vals.Validators[0] != valoper || wa.WithdrawAddress != delAcc {
		t.Fatalf("validators %v, withdraw address %s", vals.Validators, wa.WithdrawAddress)
	}
	var params distrv1beta1.QueryParamsResponse
	call("/cosmos.distribution.v1beta1.Query/Params", &distrv1beta1.QueryParamsRequest{}, &params)
	if params.Params.CommunityTax != dec.MustParse("0.02").Raw().String() || !params.Params.WithdrawAddrEnabled {
		t.Fatalf("params %v", &params)
	}
	_, err := r.Call(context.Background(), "/cosmos.distribution.v1beta1.Query/DelegationRewards", func(m proto.Message) error {
		proto.Merge(m, &distrv1beta1.QueryDelegationRewardsRequest{DelegatorAddress: accounts.Bech32("ember", common.Address{0xee}), ValidatorAddress: valoper})
		return nil
	})
	if status.Code(err) != codes.NotFound {
		t.Fatalf("no delegation: %v", err)
	}
	_, err = r.Call(context.Background(), "/cosmos.distribution.v1beta1.Query/ValidatorSlashes", func(m proto.Message) error {
		proto.Merge(m, &distrv1beta1.QueryValidatorSlashesRequest{ValidatorAddress: valoper, StartingHeight: 3, EndingHeight: 2})
		return nil
	})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("heights reversed: %v", err)
	}

	var infl mintv1beta1.QueryInflationResponse
	call("/cosmos.mint.v1beta1.Query/Inflation", &mintv1beta1.QueryInflationRequest{}, &infl)
	var ap mintv1beta1.QueryAnnualProvisionsResponse
	call("/cosmos.mint.v1beta1.Query/AnnualProvisions", &mintv1beta1.QueryAnnualProvisionsRequest{}, &ap)
	var mp mintv1beta1.QueryParamsResponse
	call("/cosmos.mint.v1beta1.Query/Params", &mintv1beta1.QueryParamsRequest{}, &mp)
	if string(infl.Inflation) != "130000000000000000" || string(ap.AnnualProvisions) != "26000000000000000000" || mp.Params.MintDenom != "aember" || mp.Params.BlocksPerYear != 6311520 {
		t.Fatalf("mint: %s %s %v", infl.Inflation, ap.AnnualProvisions, &mp)
	}
}
