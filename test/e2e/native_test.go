package e2e

import (
	"crypto/ecdsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	secp256k1pb "cosmossdk.io/api/cosmos/crypto/secp256k1"
	signingv1beta1 "cosmossdk.io/api/cosmos/tx/signing/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	cmted25519 "github.com/cometbft/cometbft/crypto/ed25519"
	cmthttp "github.com/cometbft/cometbft/rpc/client/http"
	coretypes "github.com/cometbft/cometbft/rpc/core/types"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/gorilla/websocket"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/bank"
	"github.com/emberchain/ember/internal/wait"
	"github.com/emberchain/ember/native"
)

// devChainID is the chain id of `emberd dev`.
const devChainID = "ember_31337-1"

var (
	e18       = big.NewInt(1_000_000_000_000_000_000)
	nativeB   = native.Builder{Prefix: "ember", Denom: "aember"}
	gasPrice  = big.NewInt(10_000_000_000) // 10 gwei: above the dev base fee
	nativeGas = uint64(200_000)
)

func tokensE18(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), e18) }

// cometClient is a CometBFT RPC client of the node.
func (n *Node) cometClient(t *testing.T) *cmthttp.HTTP {
	t.Helper()
	c, err := cmthttp.New("tcp://"+n.CometRPC, "/websocket")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// nativeAccount reads an account's number and sequence over REST.
func nativeAccount(t *testing.T, n *Node, addr common.Address) (number, sequence uint64) {
	t.Helper()
	code, body, _ := n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+addr.Hex())
	if code != 200 {
		t.Fatalf("account %s: %d %s", addr, code, body)
	}
	var v struct {
		Account accounts.EthAccount `json:"account"`
	}
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatal(err)
	}
	number, _ = strconv.ParseUint(v.Account.BaseAccount.AccountNumber, 10, 64)
	sequence, _ = strconv.ParseUint(v.Account.BaseAccount.Sequence, 10, 64)
	return number, sequence
}

// signNative signs msgs with key at the account's current number and
// sequence, paying gas × 10 gwei.
func signNative(t *testing.T, n *Node, key *ecdsa.PrivateKey, msgs ...proto.Message) ([]byte, *big.Int) {
	t.Helper()
	num, seq := nativeAccount(t, n, crypto.PubkeyToAddress(key.PublicKey))
	return signNativeWith(t, key, native.SignOptions{ChainID: devChainID, AccountNumber: num, Sequence: seq}, msgs...)
}

func signNativeWith(t *testing.T, key *ecdsa.PrivateKey, o native.SignOptions, msgs ...proto.Message) ([]byte, *big.Int) {
	t.Helper()
	o.GasLimit, o.Denom = nativeGas, "aember"
	if o.Fee == nil {
		o.Fee = new(big.Int).Mul(gasPrice, new(big.Int).SetUint64(nativeGas))
	}
	raw, err := native.Sign(key, msgs, o)
	if err != nil {
		t.Fatal(err)
	}
	return raw, o.Fee
}

// broadcast sends raw with broadcast_tx_sync and returns CheckTx's answer.
func broadcast(t *testing.T, n *Node, raw []byte) *coretypes.ResultBroadcastTx {
	t.Helper()
	res, err := n.cometClient(t).BroadcastTxSync(ctx(t), raw)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// deliver broadcasts raw, requires CheckTx to accept it and waits for it to
// be in a block; it returns the block result.
func deliver(t *testing.T, n *Node, raw []byte) *coretypes.ResultTx {
	t.Helper()
	res := broadcast(t, n, raw)
	if res.Code != 0 {
		t.Fatalf("CheckTx: code %d (%s): %s", res.Code, res.Codespace, res.Log)
	}
	return waitCometTx(t, n, res.Hash)
}

func waitCometTx(t *testing.T, n *Node, hash []byte) *coretypes.ResultTx {
	t.Helper()
	c := n.cometClient(t)
	return wait.For(t, 30*time.Second, fmt.Sprintf("tx %X in a block", hash), func() (*coretypes.ResultTx, error) {
		return c.Tx(ctx(t), hash, false)
	})
}

func balanceAt(t *testing.T, n *Node, addr common.Address) *big.Int {
	t.Helper()
	b, err := n.Eth.BalanceAt(ctx(t), addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sub(a *big.Int, bs ...*big.Int) *big.Int {
	out := new(big.Int).Set(a)
	for _, b := range bs {
		out.Sub(out, b)
	}
	return out
}

func add(a *big.Int, bs ...*big.Int) *big.Int {
	out := new(big.Int).Set(a)
	for _, b := range bs {
		out.Add(out, b)
	}
	return out
}

// expectRefusal broadcasts raw and requires CheckTx to refuse it with code
// and log in codespace sdk.
func expectRefusal(t *testing.T, n *Node, what string, raw []byte, code uint32, log string) {
	t.Helper()
	res := broadcast(t, n, raw)
	if res.Code != code || res.Codespace != "sdk" || res.Log != log {
		t.Errorf("%s: code %d codespace %q log %q; want %d sdk %q", what, res.Code, res.Codespace, res.Log, code, log)
	}
}

// TestNativeSend: a MsgSend built with the published protobuf types moves
// funds to the wei, uses the sender's nonce, lets an EVM tx with the next
// nonce through, is found by tx_search by its events; every kind of bad tx
// is refused with the Cosmos error; the CLI sends the same way.
func TestNativeSend(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	key := devKeys[1].Private
	from := devKeys[1].Address
	to := common.HexToAddress("0x00000000000000000000000000000000000Ba5e1")
	amount := big.NewInt(123_456_789)

	before := balanceAt(t, n, from)
	raw, fee := signNative(t, n, key, nativeB.Send(from, to, amount))
	res := deliver(t, n, raw)
	if res.TxResult.Code != 0 {
		t.Fatalf("MsgSend: code %d %s", res.TxResult.Code, res.TxResult.Log)
	}
	if got, want := balanceAt(t, n, from), sub(before, amount, fee); got.Cmp(want) != 0 {
		t.Fatalf("sender balance %v, want %v (amount + fee %v)", got, want, fee)
	}
	if got := balanceAt(t, n, to); got.Cmp(amount) != 0 {
		t.Fatalf("recipient balance %v, want %v", got, amount)
	}
	nonce, err := n.Eth.NonceAt(ctx(t), from, nil)
	if err != nil || nonce != 1 {
		t.Fatalf("nonce %d, %v; want 1", nonce, err)
	}
	if want := int64(native.GasTxBase + bank.GasMsgSend + native.GasPerByte*len(raw)); res.TxResult.GasUsed != want || res.TxResult.GasWanted != int64(nativeGas) {
		t.Fatalf("gas used %d wanted %d; want %d and %d", res.TxResult.GasUsed, res.TxResult.GasWanted, want, nativeGas)
	}

	// An EVM tx with the next nonce.
	evmTx, err := types.SignNewTx(key, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(31337), Nonce: 1, GasTipCap: big.NewInt(1), GasFeeCap: gasPrice, Gas: 21000, To: &to, Value: big.NewInt(1)})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Eth.SendTransaction(ctx(t), evmTx); err != nil {
		t.Fatal(err)
	}
	if r := n.WaitReceipt(t, evmTx.Hash()); r.Status != 1 {
		t.Fatalf("EVM tx after the native one: status %d", r.Status)
	}

	// tx_search finds the native tx by its Cosmos events.
	sender := accounts.Bech32("ember", from)
	for _, q := range []string{
		fmt.Sprintf("message.sender='%s' AND message.action='/cosmos.bank.v1beta1.MsgSend'", sender),
		fmt.Sprintf("transfer.recipient='%s'", accounts.Bech32("ember", to)),
		fmt.Sprintf("tx.acc_seq='%s/0'", sender),
	} {
		found := wait.For(t, 10*time.Second, fmt.Sprintf("tx_search %q to find the send", q), func() (*coretypes.ResultTxSearch, error) {
			found, err := n.cometClient(t).TxSearch(ctx(t), q, false, nil, nil, "")
			if err != nil {
				return nil, err
			}
			return found, wait.Check(found.TotalCount > 0, "none")
		})
		if found.TotalCount != 1 || !strings.EqualFold(found.Txs[0].Hash.String(), res.Hash.String()) {
			t.Fatalf("tx_search %q: %+v", q, found)
		}
	}
	var transfer map[string]string
	for _, e := range res.TxResult.Events {
		if e.Type == "transfer" {
			transfer = map[string]string{}
			for _, a := range e.Attributes {
				transfer[a.Key] = a.Value
			}
		}
	}
	if transfer["sender"] != sender || transfer["recipient"] != accounts.Bech32("ember", to) || transfer["amount"] != "123456789aember" {
		t.Fatalf("transfer event %v", transfer)
	}

	// Refusals, each with the Cosmos code and text. The account now has
	// sequence 2.
	num, seq := nativeAccount(t, n, from)
	if seq != 2 {
		t.Fatalf("sequence %d, want 2", seq)
	}
	send := nativeB.Send(from, to, big.NewInt(1))
	bad, _ := signNativeWith(t, key, native.SignOptions{ChainID: devChainID, AccountNumber: num, Sequence: 1}, send)
	expectRefusal(t, n, "wrong sequence", bad, 32, "account sequence mismatch, expected 2, got 1: incorrect account sequence")
	sigFail := fmt.Sprintf("signature verification failed; please verify account number (%d), sequence (2) and chain-id (%s): unauthorized", num, devChainID)
	bad, _ = signNativeWith(t, key, native.SignOptions{ChainID: devChainID, AccountNumber: num + 1, Sequence: 2}, send)
	expectRefusal(t, n, "wrong account number", bad, 4, sigFail)
	bad, _ = signNativeWith(t, key, native.SignOptions{ChainID: "ember_1-1", AccountNumber: num, Sequence: 2}, send)
	expectRefusal(t, n, "wrong chain id", bad, 4, sigFail)
	other, _ := crypto.GenerateKey()
	bad, _ = signNativeWith(t, other, native.SignOptions{ChainID: devChainID, AccountNumber: num, Sequence: 2, OmitPubKey: true}, send)
	expectRefusal(t, n, "bad signature", bad, 4, sigFail)
	balance := balanceAt(t, n, from)
	tooMuch := add(balance, big.NewInt(1))
	bad, fee = signNativeWith(t, key, native.SignOptions{ChainID: devChainID, AccountNumber: num, Sequence: 2}, nativeB.Send(from, to, tooMuch))
	expectRefusal(t, n, "insufficient funds", bad, 5,
		fmt.Sprintf("spendable balance %saember is smaller than %saember: insufficient funds", balance, add(tooMuch, fee)))
	bad, _ = signNativeWith(t, key, native.SignOptions{ChainID: devChainID, AccountNumber: num, Sequence: 2, Fee: big.NewInt(1)}, send)
	expectRefusal(t, n, "fee too low", bad, 13, fmt.Sprintf("insufficient fees; got: 1aember required: %daember: insufficient fee", nativeGas*1_000_000_000))
	expectRefusal(t, n, "garbage", []byte{0x0a, 0x05, 0x01}, 2, "TxRaw: unexpected EOF: tx parse error")
	if got := balanceAt(t, n, from); got.Cmp(balance) != 0 {
		t.Fatalf("refused txs changed the balance: %v, want %v", got, balance)
	}

	// The same kind of tx assembled field by field from the published types
	// (no Ember helper), with Ethermint's 65-byte signature.
	handFee := big.NewInt(100_000 * 10_000_000_000)
	handRaw := handBuiltSend(t, key, num, 2, accounts.Bech32("ember", from), accounts.Bech32("ember", to), "1000", handFee.String())
	if r := deliver(t, n, handRaw); r.TxResult.Code != 0 {
		t.Fatalf("hand-built MsgSend: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	if got, want := balanceAt(t, n, from), sub(balance, big.NewInt(1000), handFee); got.Cmp(want) != 0 {
		t.Fatalf("sender after the hand-built tx %v, want %v", got, want)
	}

	// The CLI: a key of the home's keyring, an explicit fee.
	cliFrom := devKeys[2].Address
	cliBefore := balanceAt(t, n, cliFrom)
	out, err := exec.Command(emberdBin, "tx", "bank", "send", "dev2", accounts.Bech32("ember", to), "777aember",
		"--home", n.Home, "--node", "tcp://"+n.CometRPC, "--fees", "3000000000000000aember").CombinedOutput()
	if err != nil {
		t.Fatalf("emberd tx bank send: %v\n%s", err, out)
	}
	var cli struct {
		TxHash string `json:"txhash"`
		Height string `json:"height"`
		Code   uint32 `json:"code"`
	}
	if err := json.Unmarshal(out, &cli); err != nil || cli.Code != 0 || cli.Height == "0" || len(cli.TxHash) != 64 {
		t.Fatalf("CLI output %s: %v", out, err)
	}
	if got, want := balanceAt(t, n, cliFrom), sub(cliBefore, big.NewInt(777), big.NewInt(3_000_000_000_000_000)); got.Cmp(want) != 0 {
		t.Fatalf("CLI sender %v, want %v", got, want)
	}
	if got, want := balanceAt(t, n, to), add(amount, big.NewInt(1+1000+777)); got.Cmp(want) != 0 {
		t.Fatalf("recipient %v, want %v", got, want)
	}

	// After a crash and restart (`emberd start`: no InitChain) native txs
	// still verify against the chain id.
	n.Kill()
	n.Start("start")
	raw, fee = signNative(t, n, key, nativeB.Send(from, to, big.NewInt(2)))
	before = balanceAt(t, n, from)
	if r := deliver(t, n, raw); r.TxResult.Code != 0 {
		t.Fatalf("MsgSend after restart: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	if got, want := balanceAt(t, n, from), sub(before, big.NewInt(2), fee); got.Cmp(want) != 0 {
		t.Fatalf("sender after restart %v, want %v", got, want)
	}
}

// validatorUpdate is one entry of a ValidatorSetUpdates event.
type validatorUpdate struct {
	Address string `json:"address"`
	PubKey  struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"pub_key"`
	VotingPower      string `json:"voting_power"`
	ProposerPriority string `json:"proposer_priority"`
}

// subscribeValidatorUpdates subscribes to tm.event='ValidatorSetUpdates' on
// the CometBFT WebSocket and delivers each event's updates.
func subscribeValidatorUpdates(t *testing.T, n *Node) <-chan []validatorUpdate {
	t.Helper()
	conn, _, err := websocket.DefaultDialer.Dial("ws://"+n.CometRPC+"/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	sub := `{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"query":"tm.event='ValidatorSetUpdates'"}}`
	if err := conn.WriteMessage(websocket.TextMessage, []byte(sub)); err != nil {
		t.Fatal(err)
	}
	ch := make(chan []validatorUpdate, 16)
	go func() {
		defer close(ch)
		for {
			_, msg, err := conn.ReadMessage()
			if err != nil {
				return
			}
			var m struct {
				Result struct {
					Data struct {
						Type  string `json:"type"`
						Value struct {
							Updates []validatorUpdate `json:"validator_updates"`
						} `json:"value"`
					} `json:"data"`
				} `json:"result"`
			}
			if json.Unmarshal(msg, &m) == nil && m.Result.Data.Type == "tendermint/event/ValidatorSetUpdates" {
				ch <- m.Result.Data.Value.Updates
			}
		}
	}()
	return ch
}

func nextUpdate(t *testing.T, ch <-chan []validatorUpdate) []validatorUpdate {
	t.Helper()
	select {
	case u, ok := <-ch:
		if !ok {
			t.Fatal("WebSocket closed")
		}
		return u
	case <-time.After(30 * time.Second):
		t.Fatal("no ValidatorSetUpdates event within 30s")
	}
	return nil
}

// cometValidators is CometBFT's /validators: address -> voting power.
func cometValidators(t *testing.T, n *Node) map[string]int64 {
	t.Helper()
	res, err := n.cometClient(t).Validators(ctx(t), nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, v := range res.Validators {
		out[v.Address.String()] = v.VotingPower
	}
	return out
}

// waitCometValidators polls /validators until cond holds.
func waitCometValidators(t *testing.T, n *Node, what string, cond func(map[string]int64) bool) {
	t.Helper()
	wait.Eventually(t, 30*time.Second, "/validators to show "+what, func() error {
		vals := cometValidators(t, n)
		return wait.Check(cond(vals), "%v", vals)
	})
}

// TestNativeStaking: a new validator (fresh ed25519 key) plus a delegation
// join CometBFT's set with power tokens/10^18, announced over the
// WebSocket; unbonding below 10^18 removes it, and the tokens come back to
// the delegator after the unbonding time. The validator set, reward address
// and unbonding queue read through `emberd query validators`.
func TestNativeStaking(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--unbonding-time", "3s")
	updates := subscribeValidatorUpdates(t, n)
	opKey, op := devKeys[3].Private, devKeys[3].Address
	delKey, del := devKeys[4].Private, devKeys[4].Address
	cons := cmted25519.GenPrivKey().PubKey()
	consAddr := cons.Address().String()
	consB64 := base64.StdEncoding.EncodeToString(cons.Bytes())
	bonded := common.HexToAddress("0x0000000000000000000000000000000000000B0D")
	poolBefore := balanceAt(t, n, bonded)
	if poolBefore.Cmp(tokensE18(10)) != 0 {
		t.Fatalf("bonded pool at genesis %v, want the dev validator's 10·10^18", poolBefore)
	}

	opBefore := balanceAt(t, n, op)
	raw, fee := signNative(t, n, opKey, nativeB.CreateValidator(op, cons.Bytes(), "fresh", e18))
	if r := deliver(t, n, raw); r.TxResult.Code != 0 {
		t.Fatalf("create-validator: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	if got, want := balanceAt(t, n, op), sub(opBefore, e18, fee); got.Cmp(want) != 0 {
		t.Fatalf("operator %v, want %v", got, want)
	}
	u := nextUpdate(t, updates)
	if len(u) != 1 || u[0].Address != consAddr || u[0].PubKey.Type != "tendermint/PubKeyEd25519" || u[0].PubKey.Value != consB64 || u[0].VotingPower != "1" {
		t.Fatalf("update after create-validator: %+v (want %s power 1)", u, consAddr)
	}
	if _, err := strconv.ParseInt(u[0].ProposerPriority, 10, 64); err != nil {
		t.Fatalf("proposer_priority %q is not a decimal string", u[0].ProposerPriority)
	}

	delegation := add(e18, big.NewInt(5))
	delBefore := balanceAt(t, n, del)
	raw, fee = signNative(t, n, delKey, nativeB.Delegate(del, op, delegation))
	r := deliver(t, n, raw)
	if r.TxResult.Code != 0 {
		t.Fatalf("delegate: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	delAfterFee := sub(delBefore, fee)
	if got, want := balanceAt(t, n, del), sub(delAfterFee, delegation); got.Cmp(want) != 0 {
		t.Fatalf("delegator %v, want %v", got, want)
	}
	if got, want := balanceAt(t, n, bonded), add(poolBefore, e18, delegation); got.Cmp(want) != 0 {
		t.Fatalf("bonded pool %v, want %v", got, want)
	}
	if u = nextUpdate(t, updates); len(u) != 1 || u[0].Address != consAddr || u[0].VotingPower != "2" {
		t.Fatalf("update after delegate: %+v", u)
	}
	waitCometValidators(t, n, consAddr+" with power 2", func(v map[string]int64) bool { return v[consAddr] == 2 && len(v) == 2 })

	var q struct {
		Validators []struct {
			OperatorAddress string `json:"operator_address"`
			ConsensusPubKey struct {
				Key string `json:"key"`
			} `json:"consensus_pubkey"`
			Tokens        string `json:"tokens"`
			Power         string `json:"power"`
			Status        string `json:"status"`
			RewardAddress string `json:"reward_address"`
			Moniker       string `json:"moniker"`
		} `json:"validators"`
		Unbonding []struct {
			DelegatorAddress string `json:"delegator_address"`
			Amount           string `json:"amount"`
		} `json:"unbonding"`
	}
	queryValidators := func() {
		t.Helper()
		out, err := exec.Command(emberdBin, "query", "validators", "--node", "tcp://"+n.CometRPC).CombinedOutput()
		if err != nil {
			t.Fatalf("emberd query validators: %v\n%s", err, out)
		}
		if err := json.Unmarshal(out, &q); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
	}
	queryValidators()
	valoper, _ := accounts.NewPrefixes("ember").Encode(accounts.KindValidator, op[:])
	if len(q.Validators) != 2 || q.Validators[1].OperatorAddress != valoper || q.Validators[1].ConsensusPubKey.Key != consB64 ||
		q.Validators[1].Tokens != add(e18, delegation).String() || q.Validators[1].Power != "2" || q.Validators[1].Status != "BOND_STATUS_BONDED" ||
		q.Validators[1].RewardAddress != op.Hex() || q.Validators[1].Moniker != "fresh" {
		t.Fatalf("query validators: %+v", q.Validators)
	}

	// Unbond below one power: the delegator takes all, the operator 1.
	raw, fee = signNative(t, n, delKey, nativeB.Undelegate(del, op, delegation))
	if r := deliver(t, n, raw); r.TxResult.Code != 0 {
		t.Fatalf("undelegate: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	delAfterFee = sub(delAfterFee, fee)
	raw, _ = signNative(t, n, opKey, nativeB.Undelegate(op, op, big.NewInt(1)))
	if r := deliver(t, n, raw); r.TxResult.Code != 0 {
		t.Fatalf("operator undelegate: %d %s", r.TxResult.Code, r.TxResult.Log)
	}
	for {
		u = nextUpdate(t, updates)
		if len(u) == 1 && u[0].VotingPower == "1" { // after the delegator's unbonding: 10^18 - 0 + ... = power 1
			continue
		}
		break
	}
	if len(u) != 1 || u[0].Address != consAddr || u[0].VotingPower != "0" {
		t.Fatalf("update after unbonding: %+v, want %s power 0", u, consAddr)
	}
	waitCometValidators(t, n, consAddr+" removed", func(v map[string]int64) bool { _, ok := v[consAddr]; return !ok && len(v) == 1 })

	// The tokens come back after the unbonding time (3 s), at the first
	// block after it: nudge the chain with EVM transfers until they do.
	if got := balanceAt(t, n, del); got.Cmp(sub(delAfterFee, delegation)) != 0 && got.Cmp(delAfterFee) != 0 {
		t.Fatalf("delegator while unbonding %v, want %v", got, sub(delAfterFee, delegation))
	}
	nudger := devKeys[5]
	unbonding := common.HexToAddress("0x0000000000000000000000000000000000000B0E")
	// The unbonding ends in a block after its time: a transfer every half
	// second makes the blocks.
	if err := wait.PollEvery(500*time.Millisecond, 30*time.Second, "the unbonded stake back with the delegator", func() error {
		// The validator, out of the set, keeps its e18-1 tokens in the
		// not-bonded pool; the unbonding entries leave it.
		if got := balanceAt(t, n, del); got.Cmp(delAfterFee) != 0 || balanceAt(t, n, unbonding).Cmp(sub(e18, big.NewInt(1))) != 0 {
			nonce, _ := n.Eth.PendingNonceAt(ctx(t), nudger.Address)
			tx, _ := types.SignNewTx(nudger.Private, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{
				ChainID: big.NewInt(31337), Nonce: nonce, GasTipCap: big.NewInt(1), GasFeeCap: gasPrice, Gas: 21000, To: &nudger.Address})
			_ = n.Eth.SendTransaction(ctx(t), tx)
			return fmt.Errorf("delegator %v, want %v", got, delAfterFee)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	queryValidators()
	if len(q.Validators) != 2 || q.Validators[1].Power != "0" || q.Validators[1].Status != "BOND_STATUS_UNBONDED" ||
		q.Validators[1].Tokens != sub(e18, big.NewInt(1)).String() || len(q.Unbonding) != 0 {
		t.Fatalf("query validators after unbonding: %+v", q)
	}
	// Supply is conserved: the bonded pool holds exactly the bonded tokens
	// (the unbonded validator's are in the not-bonded pool).
	if got, want := balanceAt(t, n, bonded), poolBefore; got.Cmp(want) != 0 {
		t.Fatalf("bonded pool %v, want %v", got, want)
	}
}

// TestNativeRewardAddress: `emberd tx staking edit-validator
// --reward-address` (a MsgSetWithdrawAddress) makes the dev validator's
// blocks pay their priority fees to the new address, its withdraw address.
func TestNativeRewardAddress(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	reward := common.HexToAddress("0x000000000000000000000000000000000000bEEF")
	out, err := exec.Command(emberdBin, "tx", "staking", "edit-validator", "--from", "dev0", "--reward-address", reward.Hex(),
		"--home", n.Home, "--node", "tcp://"+n.CometRPC).CombinedOutput()
	if err != nil {
		t.Fatalf("edit-validator: %v\n%s", err, out)
	}
	sender := devKeys[6]
	tx, err := types.SignNewTx(sender.Private, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(31337), Nonce: 0, GasTipCap: big.NewInt(7), GasFeeCap: gasPrice, Gas: 21000, To: &sender.Address})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
		t.Fatal(err)
	}
	r := n.WaitReceipt(t, tx.Hash())
	block, err := n.Eth.BlockByNumber(ctx(t), r.BlockNumber)
	if err != nil {
		t.Fatal(err)
	}
	if block.Coinbase() != reward {
		t.Fatalf("coinbase %s, want %s", block.Coinbase(), reward)
	}
	if got := balanceAt(t, n, reward); got.Int64() != 7*21000 {
		t.Fatalf("reward address balance %v, want %d", got, 7*21000)
	}
	// The address is the operator's distribution withdraw address.
	if _, body, _ := n.restGet(t, "/cosmos/distribution/v1beta1/delegators/"+devKeys[0].Address.Hex()+"/withdraw_address"); body != `{"withdraw_address":"`+accounts.Bech32("ember", reward)+`"}` {
		t.Fatalf("withdraw address: %s", body)
	}
}

// handBuiltSend assembles a MsgSend TxRaw from the cosmossdk.io/api types:
// TxBody, AuthInfo (eth_secp256k1 key under the Ethermint type URL,
// SIGN_MODE_DIRECT), SignDoc signed over keccak256 with a 65-byte r||s||v.
func handBuiltSend(t *testing.T, key *ecdsa.PrivateKey, accNum, seq uint64, from, to, amount, fee string) []byte {
	t.Helper()
	det := proto.MarshalOptions{Deterministic: true}
	msg, err := det.Marshal(&bankv1beta1.MsgSend{FromAddress: from, ToAddress: to, Amount: []*basev1beta1.Coin{{Denom: "aember", Amount: amount}}})
	if err != nil {
		t.Fatal(err)
	}
	body, err := det.Marshal(&txv1beta1.TxBody{Messages: []*anypb.Any{{TypeUrl: "/cosmos.bank.v1beta1.MsgSend", Value: msg}}, Memo: "by hand"})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := det.Marshal(&secp256k1pb.PubKey{Key: crypto.CompressPubkey(&key.PublicKey)})
	if err != nil {
		t.Fatal(err)
	}
	auth, err := det.Marshal(&txv1beta1.AuthInfo{
		SignerInfos: []*txv1beta1.SignerInfo{{
			PublicKey: &anypb.Any{TypeUrl: "/ethermint.crypto.v1.ethsecp256k1.PubKey", Value: pub},
			ModeInfo:  &txv1beta1.ModeInfo{Sum: &txv1beta1.ModeInfo_Single_{Single: &txv1beta1.ModeInfo_Single{Mode: signingv1beta1.SignMode_SIGN_MODE_DIRECT}}},
			Sequence:  seq,
		}},
		Fee: &txv1beta1.Fee{Amount: []*basev1beta1.Coin{{Denom: "aember", Amount: fee}}, GasLimit: 100_000},
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := det.Marshal(&txv1beta1.SignDoc{BodyBytes: body, AuthInfoBytes: auth, ChainId: devChainID, AccountNumber: accNum})
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(crypto.Keccak256(doc), key)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := det.Marshal(&txv1beta1.TxRaw{BodyBytes: body, AuthInfoBytes: auth, Signatures: [][]byte{sig}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
