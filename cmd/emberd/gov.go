package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	queryv1beta1 "cosmossdk.io/api/cosmos/base/query/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	govv1 "cosmossdk.io/api/cosmos/gov/v1"
	govv1beta1 "cosmossdk.io/api/cosmos/gov/v1beta1"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/dec"
)

// txGovCmd is `emberd tx gov …`.
func txGovCmd(f *txFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "gov", Short: "Governance transactions (cosmos.gov.v1 messages)"}
	cmd.AddCommand(txSubmitProposalCmd(f), txSubmitLegacyCmd(f), txGovDepositCmd(f), txGovVoteCmd(f), txGovWeightedVoteCmd(f), txGovCancelCmd(f))
	return cmd
}

// proposalFile is the SDK's `tx gov submit-proposal` JSON file.
type proposalFile struct {
	Messages  []json.RawMessage `json:"messages"`
	Metadata  string            `json:"metadata"`
	Deposit   string            `json:"deposit"`
	Title     string            `json:"title"`
	Summary   string            `json:"summary"`
	Expedited bool              `json:"expedited"`
}

func txSubmitProposalCmd(f *txFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "submit-proposal FILE.json",
		Short: "Submit a proposal of messages (the SDK's JSON file: messages with @type, metadata, deposit, title, summary)",
		Long: `Submit a v1 proposal. FILE.json is the Cosmos SDK's format:

  {"messages": [{"@type": "/cosmos.gov.v1.MsgUpdateParams", "authority": "<gov account>", …}],
   "metadata": "…", "deposit": "10000000aember", "title": "…", "summary": "…"}

Every message must name the gov account (query auth: 0x…0B50 in bech32) as its signer.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			var pf proposalFile
			if err := json.Unmarshal(raw, &pf); err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			msg := &govv1.MsgSubmitProposal{Proposer: accounts.Bech32(t.b.Prefix, t.from), Metadata: pf.Metadata, Title: pf.Title, Summary: pf.Summary, Expedited: pf.Expedited}
			for i, m := range pf.Messages {
				a := new(anypb.Any)
				if err := protojson.Unmarshal(m, a); err != nil {
					return fmt.Errorf("%s: messages[%d]: %w", args[0], i, err)
				}
				msg.Messages = append(msg.Messages, a)
			}
			if msg.InitialDeposit, err = depositCoins(pf.Deposit, t.b.Denom); err != nil {
				return err
			}
			return t.send(msg)
		},
	}
}

// depositCoins reads "123aember" (or "123"; "" is no coin).
func depositCoins(s, denom string) ([]*basev1beta1.Coin, error) {
	if s == "" {
		return nil, nil
	}
	a, err := parseAmount(s, denom)
	if err != nil {
		return nil, err
	}
	return []*basev1beta1.Coin{{Denom: denom, Amount: a.String()}}, nil
}

func txSubmitLegacyCmd(f *txFlags) *cobra.Command {
	var title, desc, typ, deposit string
	cmd := &cobra.Command{
		Use:   "submit-legacy-proposal",
		Short: "Submit a v1beta1 text proposal (--title, --description, --type text, --deposit)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !strings.EqualFold(typ, "text") {
				return fmt.Errorf("invalid --type %q: only text proposals are submitted this way; submit others as messages with submit-proposal", typ)
			}
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			content, err := proto.Marshal(&govv1beta1.TextProposal{Title: title, Description: desc})
			if err != nil {
				return err
			}
			coins, err := depositCoins(deposit, t.b.Denom)
			if err != nil {
				return err
			}
			return t.send(&govv1beta1.MsgSubmitProposal{
				Content:        &anypb.Any{TypeUrl: "/cosmos.gov.v1beta1.TextProposal", Value: content},
				InitialDeposit: coins, Proposer: accounts.Bech32(t.b.Prefix, t.from),
			})
		},
	}
	cmd.Flags().StringVar(&title, "title", "", "proposal title")
	cmd.Flags().StringVar(&desc, "description", "", "proposal description")
	cmd.Flags().StringVar(&typ, "type", "text", "proposal type (text)")
	cmd.Flags().StringVar(&deposit, "deposit", "", "initial deposit, e.g. 10000000aember")
	return cmd
}

func proposalID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("proposal-id %s not a valid uint, please input a valid proposal-id", s)
	}
	return id, nil
}

func txGovDepositCmd(f *txFlags) *cobra.Command {
	return &cobra.Command{
		Use: "deposit PROPOSAL_ID AMOUNT", Short: "Deposit on a proposal (MsgDeposit)", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := proposalID(args[0])
			if err != nil {
				return err
			}
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			coins, err := depositCoins(args[1], t.b.Denom)
			if err != nil {
				return err
			}
			return t.send(&govv1.MsgDeposit{ProposalId: id, Depositor: accounts.Bech32(t.b.Prefix, t.from), Amount: coins})
		},
	}
}

// voteOption reads yes, no, abstain, no_with_veto (or the enum names).
func voteOption(s string) (govv1.VoteOption, error) {
	switch strings.ToLower(s) {
	case "yes", "vote_option_yes":
		return govv1.VoteOption_VOTE_OPTION_YES, nil
	case "no", "vote_option_no":
		return govv1.VoteOption_VOTE_OPTION_NO, nil
	case "abstain", "vote_option_abstain":
		return govv1.VoteOption_VOTE_OPTION_ABSTAIN, nil
	case "no_with_veto", "nowithveto", "vote_option_no_with_veto":
		return govv1.VoteOption_VOTE_OPTION_NO_WITH_VETO, nil
	}
	return 0, fmt.Errorf("'%s' is not a valid vote option", s)
}

func txGovVoteCmd(f *txFlags) *cobra.Command {
	return govVoteCmd(f, "vote PROPOSAL_ID yes|no|abstain|no_with_veto", "Vote on a proposal in its voting period (MsgVote)",
		func(arg string) (voteMsg, error) {
			o, err := voteOption(arg)
			return func(id uint64, voter, metadata string) proto.Message {
				return &govv1.MsgVote{ProposalId: id, Voter: voter, Option: o, Metadata: metadata}
			}, err
		})
}

// voteMsg is the message of a vote, once its voter is known.
type voteMsg func(id uint64, voter, metadata string) proto.Message

// govVoteCmd is a vote command: PROPOSAL_ID and the vote, which parse reads
// (refusing a bad vote before the keyring is opened).
func govVoteCmd(f *txFlags, use, short string, parse func(arg string) (voteMsg, error)) *cobra.Command {
	var metadata string
	cmd := &cobra.Command{
		Use: use, Short: short, Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := proposalID(args[0])
			if err != nil {
				return err
			}
			msg, err := parse(args[1])
			if err != nil {
				return err
			}
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			return t.send(msg(id, accounts.Bech32(t.b.Prefix, t.from), metadata))
		},
	}
	cmd.Flags().StringVar(&metadata, "metadata", "", "vote metadata")
	return cmd
}

// weightedOptions reads "yes=0.6,no=0.4".
func weightedOptions(s string) ([]*govv1.WeightedVoteOption, error) {
	var out []*govv1.WeightedVoteOption
	for _, part := range strings.Split(s, ",") {
		name, weight, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("invalid weighted option %q: want OPTION=WEIGHT", part)
		}
		o, err := voteOption(name)
		if err != nil {
			return nil, err
		}
		w, err := dec.Parse(weight)
		if err != nil {
			return nil, fmt.Errorf("invalid weight %q: %w", weight, err)
		}
		out = append(out, &govv1.WeightedVoteOption{Option: o, Weight: w.String()})
	}
	return out, nil
}

func txGovWeightedVoteCmd(f *txFlags) *cobra.Command {
	return govVoteCmd(f, "weighted-vote PROPOSAL_ID yes=0.6,no=0.4", "Split a vote between options (MsgVoteWeighted)",
		func(arg string) (voteMsg, error) {
			opts, err := weightedOptions(arg)
			return func(id uint64, voter, metadata string) proto.Message {
				return &govv1.MsgVoteWeighted{ProposalId: id, Voter: voter, Options: opts, Metadata: metadata}
			}, err
		})
}

func txGovCancelCmd(f *txFlags) *cobra.Command {
	return &cobra.Command{
		Use: "cancel-proposal PROPOSAL_ID", Short: "Cancel your proposal before its voting period ends (MsgCancelProposal)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := proposalID(args[0])
			if err != nil {
				return err
			}
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			return t.send(&govv1.MsgCancelProposal{ProposalId: id, Proposer: accounts.Bech32(t.b.Prefix, t.from)})
		},
	}
}

// queryGovCmd is `emberd query gov …` (cosmos.gov.v1.Query).
func queryGovCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "gov", Short: "Proposals, votes, deposits, tallies and parameters of x/gov (cosmos.gov.v1.Query)"}
	const svc = "/cosmos.gov.v1.Query/"
	idArg := func(a []string) uint64 { id, _ := strconv.ParseUint(a[0], 10, 64); return id }
	cmd.AddCommand(
		serviceQueryCmd("params", "Print the gov parameters", svc+"Params", 0,
			noRequest(&govv1.QueryParamsRequest{}), func() proto.Message { return new(govv1.QueryParamsResponse) }),
		serviceQueryCmd("proposal PROPOSAL_ID", "Print a proposal", svc+"Proposal", 1,
			func(a []string) proto.Message { return &govv1.QueryProposalRequest{ProposalId: idArg(a)} },
			func() proto.Message { return new(govv1.QueryProposalResponse) }),
		serviceQueryCmd("votes PROPOSAL_ID", "Print the votes on a proposal (until it is tallied)", svc+"Votes", 1,
			func(a []string) proto.Message { return &govv1.QueryVotesRequest{ProposalId: idArg(a)} },
			func() proto.Message { return new(govv1.QueryVotesResponse) }),
		serviceQueryCmd("vote PROPOSAL_ID VOTER", "Print a voter's vote on a proposal", svc+"Vote", 2,
			func(a []string) proto.Message { return &govv1.QueryVoteRequest{ProposalId: idArg(a), Voter: a[1]} },
			func() proto.Message { return new(govv1.QueryVoteResponse) }),
		serviceQueryCmd("deposits PROPOSAL_ID", "Print the deposits on a proposal (until refunded or burned)", svc+"Deposits", 1,
			func(a []string) proto.Message { return &govv1.QueryDepositsRequest{ProposalId: idArg(a)} },
			func() proto.Message { return new(govv1.QueryDepositsResponse) }),
		serviceQueryCmd("deposit PROPOSAL_ID DEPOSITOR", "Print a depositor's deposit on a proposal", svc+"Deposit", 2,
			func(a []string) proto.Message {
				return &govv1.QueryDepositRequest{ProposalId: idArg(a), Depositor: a[1]}
			},
			func() proto.Message { return new(govv1.QueryDepositResponse) }),
		serviceQueryCmd("tally PROPOSAL_ID", "Print a proposal's tally (running in its voting period, final after)", svc+"TallyResult", 1,
			func(a []string) proto.Message { return &govv1.QueryTallyResultRequest{ProposalId: idArg(a)} },
			func() proto.Message { return new(govv1.QueryTallyResultResponse) }),
		queryProposalsCmd(),
	)
	return cmd
}

func queryProposalsCmd() *cobra.Command {
	var f queryFlags
	var status, voter, depositor, key string
	var limit uint64
	cmd := &cobra.Command{
		Use: "proposals", Short: "Print the proposals, a page at a time (--status, --voter, --depositor filter)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req := &govv1.QueryProposalsRequest{Voter: voter, Depositor: depositor, Pagination: &queryv1beta1.PageRequest{Limit: limit, CountTotal: key == ""}}
			if status != "" {
				v, ok := govv1.ProposalStatus_value["PROPOSAL_STATUS_"+strings.ToUpper(strings.TrimPrefix(strings.ToUpper(status), "PROPOSAL_STATUS_"))]
				if !ok {
					return fmt.Errorf("invalid --status %q: want deposit_period, voting_period, passed, rejected or failed", status)
				}
				req.ProposalStatus = govv1.ProposalStatus(v)
			}
			if key != "" {
				var err error
				if req.Pagination.Key, err = base64.StdEncoding.DecodeString(key); err != nil {
					return fmt.Errorf("invalid --page-key: %w", err)
				}
			}
			return f.run(cmd, "/cosmos.gov.v1.Query/Proposals", req, new(govv1.QueryProposalsResponse))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&status, "status", "", "only proposals in this status (deposit_period, voting_period, passed, rejected, failed)")
	cmd.Flags().StringVar(&voter, "voter", "", "only proposals this address voted on")
	cmd.Flags().StringVar(&depositor, "depositor", "", "only proposals this address deposited on")
	cmd.Flags().Uint64Var(&limit, "limit", 100, "proposals per page")
	cmd.Flags().StringVar(&key, "page-key", "", "the next_key of the previous page (base64)")
	return cmd
}
