package rest

import (
	"testing"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	ed25519pb "cosmossdk.io/api/cosmos/crypto/ed25519"
	slashingv1beta1 "cosmossdk.io/api/cosmos/slashing/v1beta1"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
)

// TestMarshal: the gateway's JSON, field by field where it differs from
// protojson: every field, nil bytes null, 64-bit integers as strings,
// cosmos.Dec with 18 places, Any expanded, Duration in seconds.
func TestMarshal(t *testing.T) {
	pk, _ := anypb.New(&ed25519pb.PubKey{Key: []byte{1, 2, 3}})
	pk.TypeUrl = "/cosmos.crypto.ed25519.PubKey"
	check := func(name string, got []byte, err error, want string) {
		t.Helper()
		if err != nil || string(got) != want {
			t.Errorf("%s:\n got  %s (%v)\n want %s", name, got, err, want)
		}
	}
	got, err := marshal(&stakingv1beta1.QueryDelegatorDelegationsResponse{
		DelegationResponses: []*stakingv1beta1.DelegationResponse{{
			Delegation: &stakingv1beta1.Delegation{DelegatorAddress: "d", ValidatorAddress: "v", Shares: "2000000000000000005"},
			Balance:    &basev1beta1.Coin{Denom: "aember", Amount: "2"},
		}},
		Pagination: &queryv1beta1.PageResponse{Total: 1},
	})
	check("delegations", got, err, `{"delegation_responses":[{"delegation":{"delegator_address":"d","validator_address":"v","shares":"2.000000000000000005"},"balance":{"denom":"aember","amount":"2"}}],"pagination":{"next_key":null,"total":"1"}}`)
	got, err = marshal(&stakingv1beta1.QueryParamsResponse{Params: &stakingv1beta1.Params{UnbondingTime: durationpb.New(1814400e9), MaxValidators: 100, MinCommissionRate: "0"}})
	check("params", got, err, `{"params":{"unbonding_time":"1814400s","max_validators":100,"max_entries":0,"historical_entries":0,"bond_denom":"","min_commission_rate":"0.000000000000000000"}}`)
	got, err = marshal(&stakingv1beta1.Validator{ConsensusPubkey: pk, Status: stakingv1beta1.BondStatus_BOND_STATUS_BONDED, DelegatorShares: "-1"})
	check("validator", got, err, `{"operator_address":"","consensus_pubkey":{"@type":"/cosmos.crypto.ed25519.PubKey","key":"AQID"},"jailed":false,"status":"BOND_STATUS_BONDED","tokens":"","delegator_shares":"-0.000000000000000001","description":null,"unbonding_height":"0","unbonding_time":null,"commission":null,"min_self_delegation":"","unbonding_on_hold_ref_count":"0","unbonding_ids":[]}`)
	if _, err := marshal(&stakingv1beta1.Validator{ConsensusPubkey: &anypb.Any{TypeUrl: "/no.Such"}}); err == nil {
		t.Error("an Any of an unknown type marshalled")
	}
}

// TestMarshalDecBytes: a cosmos.Dec held in bytes (the slashing params) is
// written as the decimal, as the gateway writes LegacyDec.
func TestMarshalDecBytes(t *testing.T) {
	got, err := marshal(&slashingv1beta1.QueryParamsResponse{Params: &slashingv1beta1.Params{
		SignedBlocksWindow: 100, MinSignedPerWindow: []byte("500000000000000000"), DowntimeJailDuration: durationpb.New(600e9),
		SlashFractionDoubleSign: []byte("50000000000000000"), SlashFractionDowntime: []byte("10000000000000000"),
	}})
	want := `{"params":{"signed_blocks_window":"100","min_signed_per_window":"0.500000000000000000","downtime_jail_duration":"600s","slash_fraction_double_sign":"0.050000000000000000","slash_fraction_downtime":"0.010000000000000000"}}`
	if err != nil || string(got) != want {
		t.Fatalf("got  %s (%v)\nwant %s", got, err, want)
	}
}
