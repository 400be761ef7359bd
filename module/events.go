package module

import (
	"math/big"

	abci "github.com/cometbft/cometbft/abci/types"
	"github.com/ethereum/go-ethereum/common"

	"github.com/emberchain/ember/accounts"
)

// Events collects Cosmos events; addresses are bech32, amounts "<n><denom>".
type Events struct {
	prefix, denom string
	list          []abci.Event
}

// NewEvents returns an empty collector for a chain with prefix and denom.
func NewEvents(prefix, denom string) *Events { return &Events{prefix: prefix, denom: denom} }

// List is the events collected, in order.
func (e *Events) List() []abci.Event { return e.list }

// Add adds an event of type typ with the key-value pairs kv, all indexed;
// a msg_index whose value is empty is left out (block events have none).
func (e *Events) Add(typ string, kv ...string) {
	ev := abci.Event{Type: typ}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "msg_index" && kv[i+1] == "" {
			continue
		}
		ev.Attributes = append(ev.Attributes, abci.EventAttribute{Key: kv[i], Value: kv[i+1], Index: true})
	}
	e.list = append(e.list, ev)
}

// Acc is an account address in bech32.
func (e *Events) Acc(a common.Address) string { return accounts.Bech32(e.prefix, a) }

// Valoper is a validator operator address in bech32.
func (e *Events) Valoper(a common.Address) string {
	s, _ := accounts.NewPrefixes(e.prefix).Encode(accounts.KindValidator, a[:])
	return s
}

// Coin is amount of the chain's coin, as Cosmos writes it.
func (e *Events) Coin(a *big.Int) string { return a.String() + e.denom }

// Coins are the bank events of moving amount from one account to another;
// idx is the msg_index ("" for a block event).
func (e *Events) Coins(from, to common.Address, amount *big.Int, idx string) {
	e.Add("coin_spent", "spender", e.Acc(from), "amount", e.Coin(amount), "msg_index", idx)
	e.Add("coin_received", "receiver", e.Acc(to), "amount", e.Coin(amount), "msg_index", idx)
}

// eventState is a State that carries the collector the events of changes
// made through it go to, as the SDK's context carries its EventManager: a
// hook deep in another module (distribution paying a delegator's rewards
// when staking changes the delegation) emits where the message or the
// begin-block work that caused it emits.
type eventState struct {
	State
	events *Events
	index  string // msg_index; "" for block events
}

// WithEvents is st carrying ev and the msg_index idx ("" for block events).
func WithEvents(st State, ev *Events, idx string) State {
	if e, ok := st.(*eventState); ok {
		st = e.State
	}
	return &eventState{State: st, events: ev, index: idx}
}

// EventsOf is the collector and msg_index st carries; a State that carries
// none gets a collector whose events go nowhere.
func EventsOf(st State) (*Events, string) {
	if e, ok := st.(*eventState); ok {
		return e.events, e.index
	}
	return NewEvents("", ""), ""
}
