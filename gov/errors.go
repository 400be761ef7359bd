package gov

import (
	"errors"

	"github.com/emberchain/ember/module"
)

// Codespace is the codespace of the gov module's errors.
const Codespace = "gov"

// Gov error codes, as the Cosmos SDK's x/gov/types/errors.go registers them.
const (
	CodeUnknownProposal         uint32 = 2
	CodeInactiveProposal        uint32 = 3
	CodeAlreadyActiveProposal   uint32 = 4
	CodeInvalidProposalContent  uint32 = 5
	CodeInvalidProposalType     uint32 = 6
	CodeInvalidVote             uint32 = 7
	CodeInvalidGenesis          uint32 = 8
	CodeNoProposalHandlerExists uint32 = 9
	CodeUnroutableProposalMsg   uint32 = 10
	CodeNoProposalMsgs          uint32 = 11
	CodeInvalidProposalMsg      uint32 = 12
	CodeInvalidSigner           uint32 = 13
	CodeMetadataTooLong         uint32 = 15
	CodeMinDepositTooSmall      uint32 = 16
	CodeInvalidProposer         uint32 = 18
	CodeVotingPeriodEnded       uint32 = 20
	CodeInvalidProposal         uint32 = 21
	CodeSummaryTooLong          uint32 = 22
	CodeInvalidDepositDenom     uint32 = 23
)

var descs = map[uint32]string{
	CodeUnknownProposal:         "unknown proposal",
	CodeInactiveProposal:        "inactive proposal",
	CodeAlreadyActiveProposal:   "proposal already active",
	CodeInvalidProposalContent:  "invalid proposal content",
	CodeInvalidProposalType:     "invalid proposal type",
	CodeInvalidVote:             "invalid vote option",
	CodeInvalidGenesis:          "invalid genesis state",
	CodeNoProposalHandlerExists: "no handler exists for proposal type",
	CodeUnroutableProposalMsg:   "proposal message not recognized by router",
	CodeNoProposalMsgs:          "no messages proposed",
	CodeInvalidProposalMsg:      "invalid proposal message",
	CodeInvalidSigner:           "expected gov account as only signer for proposal message",
	CodeMetadataTooLong:         "metadata too long",
	CodeMinDepositTooSmall:      "minimum deposit is too small",
	CodeInvalidProposer:         "invalid proposer",
	CodeVotingPeriodEnded:       "voting period already ended",
	CodeInvalidProposal:         "invalid proposal",
	CodeSummaryTooLong:          "summary too long",
	CodeInvalidDepositDenom:     "invalid deposit denom",
}

// Err is a fresh gov error with code's registered text (fresh, since
// WithDetail changes it).
func Err(code uint32) *module.Error {
	return &module.Error{Codespace: Codespace, Code: code, Desc: descs[code]}
}

// HasCode tells whether err is a gov error with code.
func HasCode(err error, code uint32) bool {
	var e *module.Error
	return errors.As(err, &e) && e.Codespace == Codespace && e.Code == code
}
