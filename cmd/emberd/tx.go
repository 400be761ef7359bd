package main

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cometbft/cometbft/privval"
	cmthttp "github.com/cometbft/cometbft/rpc/client/http"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/app"
	"github.com/emberchain/ember/dec"
	"github.com/emberchain/ember/native"
	"github.com/emberchain/ember/staking"
)

// txFlags are the flags every `tx` subcommand takes.
type txFlags struct {
	keys    keysFlags
	from    string
	node    string
	chainID string
	gas     uint64
	fees    string
	output  string
	noWait  bool
	memo    string
}

func txCmd() *cobra.Command {
	f := &txFlags{}
	cmd := &cobra.Command{
		Use:   "tx",
		Short: "Sign and broadcast native (Cosmos SDK) transactions through a node's CometBFT RPC",
		Long: `Build a native transaction (cosmos.tx.v1beta1.TxRaw, SIGN_MODE_DIRECT, signed with the
--from key of the keyring over keccak256(SignDoc) as Ethermint signs), fetch the
signer's account number (abci_query /ember/account/<address>) and its next sequence
counting its txs waiting in the node's pool (/ember/pending-nonce/<address>),
broadcast it (broadcast_tx_sync) and wait until it is in a block (--no-wait: print
the CheckTx answer only). See docs/native-txs.md.`,
	}
	pf := cmd.PersistentFlags()
	pf.StringVar(&f.keys.home, "home", defaultHome(), "home directory of the keyring (and of priv_validator_key.json for create-validator)")
	pf.StringVar(&f.keys.backend, "keyring-backend", "", `keyring backend: test or file (default from app.toml [keyring] backend, else "file")`)
	pf.StringVar(&f.from, "from", "", "signer: a keyring key name or its address (ember1… or 0x…)")
	pf.StringVar(&f.node, "node", "tcp://127.0.0.1:26657", "CometBFT RPC address of the node")
	pf.StringVar(&f.chainID, "chain-id", "", "chain id to sign for (default: the node's, from /status)")
	pf.Uint64Var(&f.gas, "gas", 0, "gas limit (default: the exact gas the tx is charged, see docs/native-txs.md)")
	pf.StringVar(&f.fees, "fees", "", "fee, e.g. 42000000000000aember or a bare integer (default: gas × 2 × the node's next base fee or minimum gas price, whichever is higher)")
	pf.StringVarP(&f.output, "output", "o", "json", "output format: json or text")
	pf.BoolVar(&f.noWait, "no-wait", false, "return after CheckTx instead of waiting for the tx to be in a block")
	pf.StringVar(&f.memo, "memo", "", "memo")
	bank := &cobra.Command{Use: "bank", Short: "Bank transactions"}
	bank.AddCommand(txSendCmd(f))
	stake := &cobra.Command{Use: "staking", Short: "Staking transactions"}
	stake.AddCommand(txCreateValidatorCmd(f), txEditValidatorCmd(f), txDelegateCmd(f, false), txDelegateCmd(f, true), txRedelegateCmd(f), txCancelUnbondCmd(f))
	cmd.AddCommand(bank, stake, txSlashingCmd(f), txDistributionCmd(f), txGovCmd(f), txUpgradeCmd(f))
	return cmd
}

// txEnv is a signer ready to build messages.
type txEnv struct {
	f       *txFlags
	cmd     *cobra.Command
	key     *ecdsa.PrivateKey
	from    common.Address
	b       native.Builder
	client  *cmthttp.HTTP
	chainID string
}

// open resolves the signer key and connects to the node.
func (f *txFlags) open(cmd *cobra.Command, fromArg string) (*txEnv, error) {
	if f.output != "json" && f.output != "text" {
		return nil, fmt.Errorf("invalid --output %q: want json or text", f.output)
	}
	from := fromArg
	if from == "" {
		from = f.from
	}
	if from == "" {
		return nil, errors.New("no signer: give --from KEY_NAME or an address")
	}
	env, err := f.keys.open(cmd)
	if err != nil {
		return nil, err
	}
	name := from
	if strings.HasPrefix(from, "0x") || strings.HasPrefix(from, env.prefixes.HRP(accounts.KindAccount)+"1") {
		addr, err := accounts.ParseAddress(env.prefixes.HRP(accounts.KindAccount), from)
		if err != nil {
			return nil, err
		}
		info, err := env.kr.Find(addr)
		if err != nil {
			return nil, err
		}
		name = info.Name
	}
	pass := ""
	if env.kr.Backend() != "test" {
		if pass, err = env.ask.secret(fmt.Sprintf("Passphrase of key %q: ", name)); err != nil {
			return nil, err
		}
	}
	key, err := env.kr.Decrypt(name, pass)
	if err != nil {
		return nil, err
	}
	client, err := cmthttp.New(f.node, "/websocket")
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", f.node, err)
	}
	t := &txEnv{f: f, cmd: cmd, key: key, from: crypto.PubkeyToAddress(key.PublicKey), client: client, chainID: f.chainID}
	t.b = native.Builder{Prefix: env.prefixes.HRP(accounts.KindAccount), Denom: app.DefaultDenom}
	if t.chainID == "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		st, err := client.Status(ctx)
		if err != nil {
			return nil, fmt.Errorf("node %s status: %w", f.node, err)
		}
		t.chainID = st.NodeInfo.Network
	}
	return t, nil
}

// parseAmount reads "123aember" or "123".
func parseAmount(s, denom string) (*big.Int, error) {
	v := strings.TrimSuffix(s, denom)
	a, ok := new(big.Int).SetString(v, 10)
	if !ok || a.Sign() < 0 {
		return nil, fmt.Errorf("invalid amount %q: want an integer of %s, e.g. 1000000000000000000%s", s, denom, denom)
	}
	return a, nil
}

// operatorArg reads a validator operator address (embervaloper1… or 0x…).
func operatorArg(prefix, s string) (common.Address, error) {
	if strings.HasPrefix(s, "0x") {
		return accounts.ParseAddress(prefix, s)
	}
	kind, b, err := accounts.NewPrefixes(prefix).Decode(s)
	if err != nil {
		return common.Address{}, err
	}
	if kind != accounts.KindValidator {
		return common.Address{}, fmt.Errorf("%s is a %s address, want a validator operator (%svaloper1…)", s, kind, prefix)
	}
	return common.BytesToAddress(b), nil
}

// TxResponse is what the tx commands print: the CometBFT tx hash and the
// result (CheckTx's, or the block's once included).
type TxResponse struct {
	TxHash    string `json:"txhash"`
	Height    string `json:"height"`
	Code      uint32 `json:"code"`
	Codespace string `json:"codespace"`
	RawLog    string `json:"raw_log"`
	GasWanted string `json:"gas_wanted"`
	GasUsed   string `json:"gas_used"`
}

// pendingSequence is the sequence to sign with: the account's next nonce
// counting its transactions still in the node's pool, so that sends in quick
// succession (--no-wait) take consecutive sequences.
func (t *txEnv) pendingSequence(ctx context.Context) (uint64, error) {
	res, err := t.client.ABCIQuery(ctx, app.QueryPendingNonce+t.from.Hex(), nil)
	if err != nil {
		return 0, fmt.Errorf("query pending sequence: %w", err)
	}
	if res.Response.Code != 0 {
		return 0, fmt.Errorf("pending sequence of %s: %s", accounts.Bech32(t.b.Prefix, t.from), res.Response.Log)
	}
	var p app.PendingNonceJSON
	if err := json.Unmarshal(res.Response.Value, &p); err != nil {
		return 0, fmt.Errorf("decode pending sequence: %w", err)
	}
	return strconv.ParseUint(p.Nonce, 10, 64)
}

// send signs msgs and broadcasts them.
func (t *txEnv) send(msgs ...proto.Message) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := t.client.ABCIQuery(ctx, app.QueryNativeAccount+t.from.Hex(), nil)
	if err != nil {
		return fmt.Errorf("query account: %w", err)
	}
	if res.Response.Code != 0 {
		return fmt.Errorf("account %s: %s", accounts.Bech32(t.b.Prefix, t.from), res.Response.Log)
	}
	var acc accounts.EthAccount
	if err := json.Unmarshal(res.Response.Value, &acc); err != nil {
		return fmt.Errorf("decode account: %w", err)
	}
	num, _ := strconv.ParseUint(acc.BaseAccount.AccountNumber, 10, 64)
	seq, err := t.pendingSequence(ctx)
	if err != nil {
		return err
	}
	opts := native.SignOptions{ChainID: t.chainID, AccountNumber: num, Sequence: seq, Denom: t.b.Denom, Memo: t.f.memo, GasLimit: t.f.gas}
	if opts.GasLimit == 0 {
		if opts.GasLimit, err = native.EstimateGas(t.key, msgs, opts, t.b.Prefix, t.b.Denom); err != nil {
			return err
		}
	}
	if t.f.fees != "" {
		if opts.Fee, err = parseAmount(t.f.fees, t.b.Denom); err != nil {
			return err
		}
	} else {
		price, err := t.gasPrice(ctx)
		if err != nil {
			return err
		}
		opts.Fee = new(big.Int).Mul(price, new(big.Int).SetUint64(opts.GasLimit*2))
	}
	raw, err := native.Sign(t.key, msgs, opts)
	if err != nil {
		return err
	}
	bres, err := t.client.BroadcastTxSync(ctx, raw)
	if err != nil {
		return fmt.Errorf("broadcast: %w", err)
	}
	out := TxResponse{TxHash: strings.ToUpper(hex.EncodeToString(bres.Hash)), Height: "0", Code: bres.Code, Codespace: bres.Codespace, RawLog: bres.Log,
		GasWanted: strconv.FormatUint(opts.GasLimit, 10), GasUsed: "0"}
	if bres.Code == 0 && !t.f.noWait {
		for {
			r, err := t.client.Tx(ctx, bres.Hash, false)
			if err == nil {
				out.Height = strconv.FormatInt(r.Height, 10)
				out.Code, out.Codespace, out.RawLog = r.TxResult.Code, r.TxResult.Codespace, r.TxResult.Log
				out.GasWanted, out.GasUsed = strconv.FormatInt(r.TxResult.GasWanted, 10), strconv.FormatInt(r.TxResult.GasUsed, 10)
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("tx %s not in a block within 60s", out.TxHash)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	body, _ := json.Marshal(out)
	if err := printJSON(t.cmd, body, t.f.output); err != nil {
		return err
	}
	if out.Code != 0 {
		return fmt.Errorf("tx %s failed: code %d (%s): %s", out.TxHash, out.Code, out.Codespace, out.RawLog)
	}
	return nil
}

// gasPrice is the larger of the node's next base fee and minimum gas price.
func (t *txEnv) gasPrice(ctx context.Context) (*big.Int, error) {
	res, err := t.client.ABCIQuery(ctx, app.QueryGasPrice, nil)
	if err != nil {
		return nil, fmt.Errorf("query gas price: %w", err)
	}
	var g app.GasPriceJSON
	if err := json.Unmarshal(res.Response.Value, &g); err != nil || res.Response.Code != 0 {
		return nil, fmt.Errorf("query gas price: %s", res.Response.Log)
	}
	base, _ := new(big.Int).SetString(g.BaseFee, 10)
	min, _ := new(big.Int).SetString(g.MinGasPrice, 10)
	if base == nil || (min != nil && min.Cmp(base) > 0) {
		base = min
	}
	if base == nil {
		return nil, errors.New("query gas price: no price")
	}
	return base, nil
}

func txSendCmd(f *txFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "send FROM TO AMOUNT",
		Short: "Send AMOUNT (e.g. 1000000000000000000aember) from FROM (key name or address) to TO (ember1… or 0x…)",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.open(cmd, args[0])
			if err != nil {
				return err
			}
			to, err := accounts.ParseAddress(t.b.Prefix, args[1])
			if err != nil {
				return err
			}
			amount, err := parseAmount(args[2], t.b.Denom)
			if err != nil {
				return err
			}
			return t.send(t.b.Send(t.from, to, amount))
		},
	}
}

func txCreateValidatorCmd(f *txFlags) *cobra.Command {
	var amount, pubkey, moniker, rate, maxRate, maxChange, minSelf string
	cmd := &cobra.Command{
		Use:   "create-validator",
		Short: "Make the --from account the operator of a new validator with a self-bond",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			amt, err := parseAmount(amount, t.b.Denom)
			if err != nil {
				return err
			}
			key, err := consensusKey(f.keys.home, pubkey)
			if err != nil {
				return err
			}
			if moniker == "" {
				return errors.New("--moniker is required")
			}
			c, err := commissionFlags(rate, maxRate, maxChange)
			if err != nil {
				return err
			}
			ms, ok := new(big.Int).SetString(minSelf, 10)
			if !ok || ms.Sign() <= 0 {
				return fmt.Errorf("invalid --min-self-delegation %q: want a positive integer", minSelf)
			}
			return t.send(t.b.CreateValidatorWith(t.from, key, moniker, amt, c, ms))
		},
	}
	cmd.Flags().StringVar(&rate, "commission-rate", "0.1", "commission rate, a decimal in [0, 1]")
	cmd.Flags().StringVar(&maxRate, "commission-max-rate", "0.2", "highest commission rate the validator may ever set")
	cmd.Flags().StringVar(&maxChange, "commission-max-change-rate", "0.01", "largest daily increase of the commission rate")
	cmd.Flags().StringVar(&minSelf, "min-self-delegation", "1", "minimum self-delegation (base denomination); below it the validator is jailed")
	cmd.Flags().StringVar(&amount, "amount", "", "self-bond, e.g. 1000000000000000000aember (10^18 = power 1)")
	cmd.Flags().StringVar(&pubkey, "pubkey", "", `ed25519 consensus key: base64, or JSON {"@type":"/cosmos.crypto.ed25519.PubKey","key":"<base64>"} (default: <home>/config/priv_validator_key.json)`)
	cmd.Flags().StringVar(&moniker, "moniker", "", "validator name")
	return cmd
}

// consensusKey reads a 32-byte ed25519 key from the flag, or the home's
// priv_validator_key.json.
func consensusKey(home, flag string) ([]byte, error) {
	if flag == "" {
		path := filepath.Join(home, "config", "priv_validator_key.json")
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("no --pubkey and no %s: %w", path, err)
		}
		pv := privval.LoadFilePVEmptyState(path, "")
		return pv.Key.PubKey.Bytes(), nil
	}
	s := flag
	if strings.HasPrefix(strings.TrimSpace(s), "{") {
		var j struct {
			Key []byte `json:"key"`
		}
		if err := json.Unmarshal([]byte(s), &j); err != nil {
			return nil, fmt.Errorf("invalid --pubkey JSON: %w", err)
		}
		if len(j.Key) != 32 {
			return nil, fmt.Errorf("invalid --pubkey: %d bytes, want a 32-byte ed25519 key", len(j.Key))
		}
		return j.Key, nil
	}
	var key []byte
	if err := json.Unmarshal([]byte(strconv.Quote(s)), &key); err != nil || len(key) != 32 {
		return nil, fmt.Errorf("invalid --pubkey %q: want the base64 of a 32-byte ed25519 key", s)
	}
	return key, nil
}

func txEditValidatorCmd(f *txFlags) *cobra.Command {
	var reward, moniker, rate, minSelf string
	cmd := &cobra.Command{
		Use:   "edit-validator",
		Short: "Change the --from operator's validator: its reward address (fee recipient) and/or moniker",
		Long: `Change the validator operated by --from. --moniker sends MsgEditValidator;
--reward-address sends MsgSetWithdrawAddress (cosmos.distribution.v1beta1), which
on Ember names where the validator's priority fees go (MsgEditValidator has no
such field). Both may be given: one tx carries both messages.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if reward == "" && moniker == "" && rate == "" && minSelf == "" {
				return errors.New("nothing to edit: give --moniker, --commission-rate, --min-self-delegation and/or --reward-address")
			}
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			var msgs []proto.Message
			if moniker != "" || rate != "" || minSelf != "" {
				m, err := editMsg(t.b, t.from, moniker, rate, minSelf)
				if err != nil {
					return err
				}
				msgs = append(msgs, m)
			}
			if reward != "" {
				addr, err := accounts.ParseAddress(t.b.Prefix, reward)
				if err != nil {
					return err
				}
				msgs = append(msgs, t.b.SetRewardAddress(t.from, addr))
			}
			return t.send(msgs...)
		},
	}
	cmd.Flags().StringVar(&reward, "reward-address", "", "address (ember1… or 0x…) that receives the priority fees of the blocks the validator proposes")
	cmd.Flags().StringVar(&moniker, "moniker", "", "new moniker")
	cmd.Flags().StringVar(&rate, "commission-rate", "", "new commission rate, a decimal (at most once a day, up by at most the max change rate)")
	cmd.Flags().StringVar(&minSelf, "min-self-delegation", "", "new minimum self-delegation (base denomination; it may only increase)")
	return cmd
}

// editMsg is the MsgEditValidator of the edit-validator flags.
func editMsg(b native.Builder, op common.Address, moniker, rate, minSelf string) (proto.Message, error) {
	raw := ""
	if rate != "" {
		d, err := dec.Parse(rate)
		if err != nil {
			return nil, fmt.Errorf("invalid --commission-rate %q: %w", rate, err)
		}
		raw = d.Raw().String()
	}
	var ms *big.Int
	if minSelf != "" {
		var ok bool
		if ms, ok = new(big.Int).SetString(minSelf, 10); !ok || ms.Sign() <= 0 {
			return nil, fmt.Errorf("invalid --min-self-delegation %q: want a positive integer", minSelf)
		}
	}
	return b.EditValidatorWith(op, moniker, raw, ms), nil
}

// commissionFlags converts the create-validator commission flags
// (decimals) to the protobuf form.
func commissionFlags(rate, maxRate, maxChange string) (native.Commission, error) {
	var out [3]string
	for i, f := range []struct{ name, v string }{{"commission-rate", rate}, {"commission-max-rate", maxRate}, {"commission-max-change-rate", maxChange}} {
		d, err := dec.Parse(f.v)
		if err != nil {
			return native.Commission{}, fmt.Errorf("invalid --%s %q: %w", f.name, f.v, err)
		}
		out[i] = d.Raw().String()
	}
	return native.Commission{Rate: out[0], MaxRate: out[1], MaxChangeRate: out[2]}, nil
}

func txRedelegateCmd(f *txFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "redelegate SRC_VALOPER DST_VALOPER AMOUNT",
		Short: "Move AMOUNT of the --from account's delegation from SRC_VALOPER to DST_VALOPER at once (the move completes after the unbonding time)",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			src, err := operatorArg(t.b.Prefix, args[0])
			if err != nil {
				return err
			}
			dst, err := operatorArg(t.b.Prefix, args[1])
			if err != nil {
				return err
			}
			amount, err := parseAmount(args[2], t.b.Denom)
			if err != nil {
				return err
			}
			return t.send(t.b.Redelegate(t.from, src, dst, amount))
		},
	}
}

func txCancelUnbondCmd(f *txFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "cancel-unbond VALOPER AMOUNT CREATION_HEIGHT",
		Short: "Bond AMOUNT of the --from account's unbonding entry from VALOPER created at CREATION_HEIGHT back to it",
		Args:  cobra.ExactArgs(3),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			op, err := operatorArg(t.b.Prefix, args[0])
			if err != nil {
				return err
			}
			amount, err := parseAmount(args[1], t.b.Denom)
			if err != nil {
				return err
			}
			h, err := strconv.ParseInt(args[2], 10, 64)
			if err != nil || h <= 0 {
				return fmt.Errorf("invalid CREATION_HEIGHT %q: want a positive block height", args[2])
			}
			return t.send(t.b.CancelUnbonding(t.from, op, amount, h))
		},
	}
}

func txDelegateCmd(f *txFlags, unbond bool) *cobra.Command {
	use, short := "delegate VALOPER AMOUNT", "Bond AMOUNT of the --from account to the validator VALOPER (embervaloper1… or 0x…)"
	if unbond {
		use, short = "unbond VALOPER AMOUNT", "Unbond AMOUNT of the --from account's delegation to VALOPER; it returns after the unbonding time"
	}
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := f.open(cmd, "")
			if err != nil {
				return err
			}
			op, err := operatorArg(t.b.Prefix, args[0])
			if err != nil {
				return err
			}
			amount, err := parseAmount(args[1], t.b.Denom)
			if err != nil {
				return err
			}
			if unbond {
				return t.send(t.b.Undelegate(t.from, op, amount))
			}
			return t.send(t.b.Delegate(t.from, op, amount))
		},
	}
}

func queryValidatorsCmd() *cobra.Command {
	var (
		nodeAddr string
		output   string
		height   int64
	)
	cmd := &cobra.Command{
		Use:   "validators",
		Short: "Print the validators (operator, consensus key, tokens, power, status, reward address) and pending unbondings",
		Long:  "Print the staking state read through the node's CometBFT RPC (abci_query " + staking.QueryValidators + ").",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "json" && output != "text" {
				return fmt.Errorf("invalid --output %q: want json or text", output)
			}
			raw, err := abciQuery(cmd.Context(), nodeAddr, staking.QueryValidators, height)
			if err != nil {
				return err
			}
			return printJSON(cmd, raw, output)
		},
	}
	cmd.Flags().StringVar(&nodeAddr, "node", "tcp://127.0.0.1:26657", "CometBFT RPC address of the node")
	cmd.Flags().StringVarP(&output, "output", "o", "json", "output format: json or text")
	cmd.Flags().Int64Var(&height, "height", 0, "block height to read at (0 = latest)")
	return cmd
}
