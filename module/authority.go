package module

import (
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
)

// AuthorityMsg is a message only governance sends (MsgUpdateParams and
// the like): it names its authority, which must be GovAuthority.
type AuthorityMsg interface {
	proto.Message
	GetAuthority() string
}

// GovSignerError is x/gov's ErrInvalidSigner (gov, 13), which x/staking,
// x/slashing and x/mint return for an authority other than the gov
// account.
func GovSignerError(prefix, got string) *Error {
	return (&Error{Codespace: "gov", Code: 13, Desc: "expected gov account as only signer for proposal message"}).
		WithDetail("invalid authority; expected %s, got %s", accounts.Bech32(prefix, GovAuthority), got)
}

// ValidationError is a plain error from an SDK message server (a params
// validation failure): codespace undefined, code 1.
func ValidationError(err error) *Error {
	return &Error{Codespace: "undefined", Code: 1, Desc: err.Error()}
}

// GovOnly is the handler of a message only governance sends: Decode takes
// its authority as the signer (authErr when it is no address), Exec
// refuses any signer but GovAuthority with authErr, as the SDK's message
// servers do, and then runs apply.
func GovOnly[M AuthorityMsg](typeURL, module string, gas uint64, newMsg func() M,
	authErr func(prefix, got string) *Error, apply func(st State, msg M, env *Env) error) *MsgHandler {
	return &MsgHandler{
		TypeURL: typeURL, Module: module, Gas: gas,
		New: func() proto.Message { return newMsg() },
		Decode: func(p proto.Message, m *Msg, c Codec) error {
			msg := p.(M)
			a, err := accounts.ParseAddress(c.Prefix, msg.GetAuthority())
			if err != nil {
				return authErr(c.Prefix, msg.GetAuthority())
			}
			m.Signer = a
			return nil
		},
		Exec: func(st State, m *Msg, c *MsgContext) error {
			msg := m.Proto.(M)
			if m.Signer != GovAuthority {
				return authErr(c.Env.Prefix, msg.GetAuthority())
			}
			return apply(st, msg, c.Env)
		},
	}
}
