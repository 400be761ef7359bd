package module

import (
	"encoding/json"
	"errors"
	"math/big"
	"reflect"
	"strings"
	"testing"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/vm"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// A precompile gets a vm.StateDB: every handler must be callable with one.
var _ State = vm.StateDB(nil)

// recorder is a module that notes each hook it runs in a shared log.
type recorder struct {
	name string
	log  *[]string
	msgs []*MsgHandler
	fail error
}

func (r recorder) Name() string               { return r.name }
func (r recorder) Msgs() []*MsgHandler        { return r.msgs }
func (r recorder) note(hook string)           { *r.log = append(*r.log, r.name+"."+hook) }
func (r recorder) InitGenesis(*Genesis) error { r.note("genesis"); return r.fail }
func (r recorder) BeginBlock(State, *Block) error {
	r.note("begin")
	return r.fail
}
func (r recorder) EndBlock(State, *Block) ([]abci.ValidatorUpdate, error) {
	r.note("end")
	return []abci.ValidatorUpdate{{Power: int64(len(r.name))}}, r.fail
}
func (r recorder) Queries() []Query {
	return []Query{{Path: "/" + r.name, Answer: func(Reader, *Env) ([]byte, error) { return []byte(r.name), nil }}}
}

// TestManagerOrder: every hook runs in module order, and the end-block
// validator updates come in that order; the first error stops the rest.
func TestManagerOrder(t *testing.T) {
	var log []string
	m := NewManager(recorder{name: "a", log: &log}, recorder{name: "bb", log: &log}, plain{})
	if err := m.InitGenesis(&Genesis{}); err != nil {
		t.Fatal(err)
	}
	if err := m.BeginBlock(nil, &Block{}); err != nil {
		t.Fatal(err)
	}
	updates, err := m.EndBlock(nil, &Block{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a.genesis", "bb.genesis", "a.begin", "bb.begin", "a.end", "bb.end"}
	if !reflect.DeepEqual(log, want) {
		t.Fatalf("hooks ran %v, want %v", log, want)
	}
	if len(updates) != 2 || updates[0].Power != 1 || updates[1].Power != 2 {
		t.Fatalf("updates %v, want powers 1 then 2", updates)
	}
	q, ok := m.Query("/bb")
	if v, err := q.Answer(nil, nil); !ok || err != nil || string(v) != "bb" {
		t.Fatalf("query /bb: %v %q %v", ok, v, err)
	}
	if _, ok := m.Query("/c"); ok {
		t.Fatal("query /c answered")
	}

	log = nil
	stop := errors.New("stop")
	m = NewManager(recorder{name: "a", log: &log, fail: stop}, recorder{name: "bb", log: &log})
	if err := m.BeginBlock(nil, &Block{}); err != stop || !reflect.DeepEqual(log, []string{"a.begin"}) {
		t.Fatalf("failing begin block: %v, ran %v", err, log)
	}
}

// plain is a module with no hooks but its name and messages.
type plain struct{}

func (plain) Name() string        { return "plain" }
func (plain) Msgs() []*MsgHandler { return []*MsgHandler{send} }

var send = &MsgHandler{
	TypeURL: "/cosmos.bank.v1beta1.MsgSend", Module: "bank", Gas: 7,
	New: func() proto.Message { return new(bankv1beta1.MsgSend) },
	Decode: func(p proto.Message, m *Msg, c Codec) error {
		var err error
		m.Signer, err = c.Account("from_address", p.(*bankv1beta1.MsgSend).FromAddress)
		m.Amount = big.NewInt(5)
		return err
	},
	Spend: func(m *Msg) *big.Int { return m.Amount },
	Exec:  func(State, *Msg, *MsgContext) error { return nil },
}

// TestRouter: a message decodes with the handler of its type URL, which
// then gives its gas, spend and event module; an unknown type URL is a
// decode error; a handler registered twice or under another message's
// type URL is refused.
func TestRouter(t *testing.T) {
	r := NewRouter()
	r.Register(send)
	c := Codec{Prefix: "ember", Denom: "aember"}
	from := "0x00000000000000000000000000000000000000aa"
	value, _ := proto.Marshal(&bankv1beta1.MsgSend{FromAddress: from})
	m, err := r.Decode(&anypb.Any{TypeUrl: send.TypeURL, Value: value}, c)
	if err != nil {
		t.Fatal(err)
	}
	if m.Signer != common.HexToAddress(from) || m.Gas() != 7 || m.Spend().Int64() != 5 || m.Module() != "bank" || m.Action() != send.TypeURL {
		t.Fatalf("decoded %+v: gas %d spend %v module %s", m, m.Gas(), m.Spend(), m.Module())
	}
	ev := NewEvents("ember", "aember")
	if err := m.Exec(nil, &MsgContext{Events: ev, Index: "0"}); err != nil || len(ev.List()) != 1 || ev.List()[0].Type != "message" {
		t.Fatalf("exec: %v, events %v", err, ev.List())
	}

	_, err = r.Decode(&anypb.Any{TypeUrl: "/cosmos.bank.v1beta1.MsgMultiSend"}, c)
	if e := AsError(err); e.Code != CodeTxDecode || e.Error() != "unable to resolve type URL /cosmos.bank.v1beta1.MsgMultiSend: tx parse error" {
		t.Fatalf("unknown type URL: %v", err)
	}
	_, err = r.Decode(&anypb.Any{TypeUrl: send.TypeURL, Value: []byte{0xff}}, c)
	if e := AsError(err); e.Code != CodeTxDecode || !strings.HasPrefix(e.Error(), send.TypeURL+": ") {
		t.Fatalf("bad bytes: %v", err)
	}

	mustPanic(t, "registered twice", func() { r.Register(send) })
	wrong := *send
	wrong.TypeURL = "/cosmos.staking.v1beta1.MsgDelegate"
	mustPanic(t, "decodes /cosmos.bank.v1beta1.MsgSend", func() { NewRouter().Register(&wrong) })
	wrong.New = func() proto.Message { return new(stakingv1beta1.MsgDelegate) }
	NewRouter().Register(&wrong) // the type URL names New's message: fine
	var log []string
	mustPanic(t, "registered twice", func() { NewManager(recorder{name: "a", log: &log}, recorder{name: "a", log: &log}) })
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), want) {
			t.Fatalf("panic %v, want one containing %q", r, want)
		}
	}()
	f()
}

// TestGenesisSection: a module reads its own section; an absent or null
// one leaves the value as it is; a malformed one names its path.
func TestGenesisSection(t *testing.T) {
	g := &Genesis{AppState: json.RawMessage(`{"staking":{"unbonding_time":"60s"},"dev":true,"mint":null}`)}
	var s *struct {
		UnbondingTime string `json:"unbonding_time"`
	}
	if err := g.Section("staking", &s); err != nil || s == nil || s.UnbondingTime != "60s" {
		t.Fatalf("staking section: %+v, %v", s, err)
	}
	s = nil
	if err := g.Section("gov", &s); err != nil || s != nil {
		t.Fatalf("absent section: %+v, %v", s, err)
	}
	if err := g.Section("mint", &s); err != nil || s != nil {
		t.Fatalf("null section: %+v, %v", s, err)
	}
	if err := g.Section("dev", &s); err == nil || !strings.HasPrefix(err.Error(), "app_state.dev: ") {
		t.Fatalf("malformed section: %v", err)
	}
}
