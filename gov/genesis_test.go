package gov

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/core/types"

	"github.com/emberchain/ember/module"
)

// TestGenesis: the default section is the SDK's JSON; InitGenesis stores
// its params and starting id; invalid params are the SDK's invalid genesis.
func TestGenesis(t *testing.T) {
	raw, err := json.Marshal(DefaultGenesis(testPrefix, testDenom))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"starting_proposal_id":"1"`, `"min_deposit":[{"denom":"aember","amount":"10000000"}]`, `"max_deposit_period":"172800s"`,
		`"quorum":"0.334000000000000000"`, `"threshold":"0.500000000000000000"`, `"veto_threshold":"0.334000000000000000"`,
		`"min_initial_deposit_ratio":"0.000000000000000000"`, `"burn_vote_veto":true`, `"burn_vote_quorum":false`, `"min_deposit_ratio":"0.010000000000000000"`,
		`"proposals":[]`, `"votes":[]`, `"deposits":[]`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("default genesis %s lacks %s", raw, want)
		}
	}
	initGenesis := func(section string) (*module.AllocState, error) {
		g := &module.Genesis{AppState: json.RawMessage(`{"bech32_prefix":"ember","denom":"aember","gov":` + section + `}`), Alloc: types.GenesisAlloc{}}
		err := (&Module{}).InitGenesis(g)
		return module.NewAllocState(g.Alloc), err
	}
	section := strings.Replace(strings.Replace(string(raw), `"172800s"`, `"30s"`, 1), `"starting_proposal_id":"1"`, `"starting_proposal_id":"7"`, 1)
	st, err := initGenesis(section)
	if err != nil || GetParams(st).MaxDepositPeriod != 30*time.Second || NextProposalID(st) != 7 || st.GetNonce(module.GovAuthority) != 1 {
		t.Fatalf("init: %v, params %+v, next id %d", err, GetParams(st), NextProposalID(st))
	}
	bad := strings.Replace(string(raw), `"quorum":"0.334000000000000000"`, `"quorum":"1.5"`, 1)
	if _, err := initGenesis(bad); !HasCode(err, CodeInvalidGenesis) || !strings.Contains(err.Error(), "quorom too large: 1.500000000000000000") {
		t.Fatalf("bad quorum: %v", err)
	}
	if _, err := initGenesis(`{"proposals":[{"id":"1"}]}`); !HasCode(err, CodeInvalidGenesis) {
		t.Fatalf("proposals in genesis: %v", err)
	}
	st, err = initGenesis(`null`)
	if err != nil || GetParams(st).MinDeposit.Int64() != 10_000_000 || st.GetNonce(module.GovAuthority) != 0 {
		t.Fatalf("no section: %v", err)
	}
}
