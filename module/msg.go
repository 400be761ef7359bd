package module

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
)

// Msg is one decoded message: its type URL, the signer it names and the
// fields execution and the explorer read, parsed and checked by its
// handler's Decode.
type Msg struct {
	TypeURL string
	Proto   proto.Message
	Signer  common.Address
	// Fields, by message type:
	To        common.Address // MsgSend: recipient; MsgSetWithdrawAddress: reward address
	Validator common.Address // staking: the operator
	Amount    *big.Int       // MsgSend, MsgDelegate, MsgUndelegate, MsgCreateValidator (self-bond)
	ConsKey   []byte         // MsgCreateValidator: ed25519 consensus key
	Moniker   *string        // MsgCreateValidator, MsgEditValidator (nil: unchanged)

	handler *MsgHandler
}

// Action is the message's `message.action` event value: its type URL.
func (m *Msg) Action() string { return m.TypeURL }

// Module is the `message.module` event value.
func (m *Msg) Module() string { return m.handler.Module }

// Gas is the fixed gas of the message.
func (m *Msg) Gas() uint64 { return m.handler.Gas }

// Spend is what the message may take from the signer's balance.
func (m *Msg) Spend() *big.Int {
	if m.handler.Spend == nil {
		return new(big.Int)
	}
	return m.handler.Spend(m)
}

// Check checks the message against st without changing it, as far as it
// can be checked before execution.
func (m *Msg) Check(st Reader) error {
	if m.handler.Check == nil {
		return nil
	}
	return m.handler.Check(st, m)
}

// Exec executes message index c.Index on st: the `message` event, then
// the handler's changes and events. On an error the caller reverts st.
func (m *Msg) Exec(st State, c *MsgContext) error {
	c.Events.Add("message", "action", m.Action(), "sender", c.Events.Acc(m.Signer), "module", m.Module(), "msg_index", c.Index)
	return m.handler.Exec(WithEvents(st, c.Events, c.Index), m, c)
}

// MsgContext is what a handler's Exec gets beside the state and the message.
type MsgContext struct {
	Env    *Env
	Events *Events // the transaction's message events
	Index  string  // the message's index in its transaction, decimal (msg_index)
}

// Codec is what decoding a message needs to know of the chain.
type Codec struct {
	Prefix string // bech32 prefix of account and operator addresses
	Denom  string // the only coin
}

// MsgHandler handles one message type.
type MsgHandler struct {
	TypeURL string // "/" + the protobuf name of New's message
	Module  string // the `message.module` event value
	Gas     uint64 // fixed gas of the message
	// New returns an empty message to decode into.
	New func() proto.Message
	// Decode fills m (Signer and the fields the message sets) from p and
	// runs the stateless checks, returning an *Error with its code.
	Decode func(p proto.Message, m *Msg, c Codec) error
	// Spend is what the message may take from the signer; nil: nothing.
	Spend func(m *Msg) *big.Int
	// Check checks the message's preconditions against the state before
	// execution (CheckTx, simulation); nil: none.
	Check func(st Reader, m *Msg) error
	// Exec executes the message: its state changes and its events.
	Exec func(st State, m *Msg, c *MsgContext) error
}

// Router decodes each message with the handler registered for its type
// URL, as the Cosmos SDK's MsgServiceRouter routes by type URL.
type Router struct {
	handlers map[string]*MsgHandler
}

// NewRouter returns an empty router.
func NewRouter() *Router { return &Router{handlers: map[string]*MsgHandler{}} }

// Register adds h. A type URL registered twice, or one that does not name
// New's message, is a programming error: it panics.
func (r *Router) Register(h *MsgHandler) {
	if want := "/" + string(proto.MessageName(h.New())); h.TypeURL != want {
		panic(fmt.Sprintf("handler of %s decodes %s", h.TypeURL, want))
	}
	if _, dup := r.handlers[h.TypeURL]; dup {
		panic(fmt.Sprintf("message %s registered twice", h.TypeURL))
	}
	r.handlers[h.TypeURL] = h
}

// Handler is the handler of typeURL, if any.
func (r *Router) Handler(typeURL string) (*MsgHandler, bool) {
	h, ok := r.handlers[typeURL]
	return h, ok
}

// Decode decodes a message by its type URL and runs its stateless checks.
func (r *Router) Decode(a *anypb.Any, c Codec) (*Msg, error) {
	h, ok := r.handlers[a.TypeUrl]
	if !ok {
		return nil, SDKError(CodeTxDecode, "unable to resolve type URL %s", a.TypeUrl)
	}
	p := h.New()
	if err := StrictUnmarshal(a.Value, p); err != nil {
		return nil, SDKError(CodeTxDecode, "%s: %v", a.TypeUrl, err)
	}
	m := &Msg{TypeURL: a.TypeUrl, Proto: p, handler: h}
	if err := h.Decode(p, m, c); err != nil {
		return nil, err
	}
	return m, nil
}
