package bank

import (
	"fmt"
	"math/big"
	"testing"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/state"
	"github.com/ethereum/go-ethereum/core/tracing"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/module"
)

// TestSend: MsgSend moves its amount and emits the bank events; above the
// balance it is refused with insufficient funds and moves nothing.
func TestSend(t *testing.T) {
	r := module.NewRouter()
	for _, h := range (Module{}).Msgs() {
		r.Register(h)
	}
	from, to := common.Address{0xaa}, common.Address{0xbb}
	c := module.Codec{Prefix: "ember", Denom: "aember"}
	send := func(amount string) *module.Msg {
		t.Helper()
		value, _ := proto.Marshal(&bankv1beta1.MsgSend{FromAddress: from.Hex(), ToAddress: to.Hex(),
			Amount: []*basev1beta1.Coin{{Denom: "aember", Amount: amount}}})
		m, err := r.Decode(&anypb.Any{TypeUrl: TypeMsgSend, Value: value}, c)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	st, _ := state.New(types.EmptyRootHash, state.NewDatabaseForTesting())
	st.AddBalance(from, uint256.NewInt(100), tracing.BalanceChangeUnspecified)
	env := &module.Env{Prefix: "ember", Denom: "aember"}

	m := send("60")
	if m.Gas() != GasMsgSend || m.Spend().Int64() != 60 || m.Module() != "bank" {
		t.Fatalf("gas %d, spend %v, module %s", m.Gas(), m.Spend(), m.Module())
	}
	ev := module.NewEvents("ember", "aember")
	if err := m.Exec(st, &module.MsgContext{Env: env, Events: ev, Index: "0"}); err != nil {
		t.Fatal(err)
	}
	if st.GetBalance(from).Uint64() != 40 || st.GetBalance(to).Uint64() != 60 {
		t.Fatalf("balances %v, %v; want 40, 60", st.GetBalance(from), st.GetBalance(to))
	}
	f, r2 := accounts.Bech32("ember", from), accounts.Bech32("ember", to)
	want := fmt.Sprint([]string{
		"message action=" + TypeMsgSend + " sender=" + f + " module=bank msg_index=0",
		"coin_spent spender=" + f + " amount=60aember msg_index=0",
		"coin_received receiver=" + r2 + " amount=60aember msg_index=0",
		"transfer recipient=" + r2 + " sender=" + f + " amount=60aember msg_index=0",
		"message sender=" + f + " msg_index=0",
	})
	var got []string
	for _, e := range ev.List() {
		s := e.Type
		for _, a := range e.Attributes {
			s += " " + a.Key + "=" + a.Value
		}
		got = append(got, s)
	}
	if fmt.Sprint(got) != want {
		t.Fatalf("events\n%v\nwant\n%v", got, want)
	}

	err := send("41").Exec(st, &module.MsgContext{Env: env, Events: module.NewEvents("ember", "aember"), Index: "1"})
	if e := module.AsError(err); e.Code != module.CodeInsufficientFunds || e.Error() != "spendable balance 40aember is smaller than 41aember: insufficient funds" {
		t.Fatalf("send above the balance: %v", err)
	}
	if st.GetBalance(from).Uint64() != 40 || st.GetBalance(to).Cmp(uint256.MustFromBig(big.NewInt(60))) != 0 {
		t.Fatal("a refused send moved coins")
	}
}
