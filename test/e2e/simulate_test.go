package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rlp"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/holiman/uint256"

	"github.com/emberchain/ember/contracts"
)

// simCase is one eth_simulateV1 request, built against the block it
// simulates on (so "ten blocks after the base" means the same on both
// chains).
type simCase struct {
	name string
	req  func(base *types.Header) map[string]any
	// envWords, when set, checks the calls of blockEnv in the answer on
	// each chain (block number and time are each chain's own) and blanks
	// them; the rest of the return data is compared as is.
	envWords func(base *types.Header) map[[2]int][2]uint64
	// want are exact values of Ember's normalized answer, by path, so a
	// case cannot pass by both nodes answering the same wrong thing.
	want map[string]any
	// code is the JSON-RPC error code the request must fail with; 0: none.
	code int
}

// blockEnv is runtime code returning NUMBER, TIMESTAMP, COINBASE,
// PREVRANDAO, BASEFEE, GASLIMIT and CHAINID as seven words.
var blockEnv = common.FromHex("0x" +
	"43600052" + "42602052" + "41604052" + "44606052" + "48608052" + "4560a052" + "4660c052" + "60e06000f3")

// simCases are the requests TestSimulateMatchesGeth sends to both chains.
func simCases(t *testing.T) []simCase {
	tracee, child := contracts.MustLoad("Tracee"), contracts.MustLoad("Child")
	deploy, _ := tracee.DeployData()
	run7, _ := tracee.ABI.Pack("run", big.NewInt(7))
	counter, _ := tracee.ABI.Pack("counter")
	fail, _ := child.ABI.Pack("fail")
	sender := devKeys[7].Address
	fresh := common.HexToAddress("0x5151515151515151515151515151515151515151")
	created := crypto.CreateAddress(fresh, 0)
	envAddr := common.HexToAddress("0xe0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0e0")
	childAddr := common.HexToAddress("0xc1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1c1")
	recipient := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	hexU := func(n uint64) string { return hexutil.EncodeUint64(n) }
	return []simCase{
		{name: "transfer with traceTransfers", req: func(*types.Header) map[string]any {
			return map[string]any{"traceTransfers": true, "blockStateCalls": []any{
				map[string]any{"calls": []any{
					map[string]any{"from": sender, "to": recipient, "value": hexutil.EncodeBig(ether(1))},
				}},
			}}
		}, want: map[string]any{
			"[0].number": "base+1", "[0].timestamp": "base+12", "[0].gasUsed": "0x5208", "[0].baseFeePerGas": "0x0",
			"[0].calls[0].status": "0x1", "[0].calls[0].logs[0].address": "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee",
			"[0].calls[0].logs[0].topics[2]": common.BytesToHash(recipient.Bytes()).Hex(),
			"[0].calls[0].logs[0].data":      common.BigToHash(ether(1)).Hex(),
		}},
		{name: "deploy and call across two blocks with state overrides, full transactions", req: func(*types.Header) map[string]any {
			return map[string]any{"traceTransfers": true, "returnFullTransactions": true, "blockStateCalls": []any{
				map[string]any{
					"stateOverrides": map[string]any{fresh.Hex(): map[string]any{"balance": hexutil.EncodeBig(ether(5))}},
					"calls":          []any{map[string]any{"from": fresh, "input": hexutil.Encode(deploy)}},
				},
				map[string]any{
					// counter = 100 until run(7) sets it to 7+3 (through its
					// DELEGATECALL) and adds the second child's 8.
					"stateOverrides": map[string]any{created.Hex(): map[string]any{"stateDiff": map[string]any{
						common.Hash{}.Hex(): common.BigToHash(big.NewInt(100)).Hex()}}},
					"calls": []any{
						map[string]any{"from": fresh, "to": created, "input": hexutil.Encode(counter)},
						map[string]any{"from": fresh, "to": created, "value": "0xa", "input": hexutil.Encode(run7)},
						map[string]any{"from": fresh, "to": created, "input": hexutil.Encode(counter)},
					},
				},
			}}
		}, want: map[string]any{
			"[0].transactions[0].from": strings.ToLower(fresh.Hex()), "[0].calls[0].status": "0x1",
			"[1].number": "base+2", "[1].timestamp": "base+24",
			"[1].calls[0].returnData": common.BigToHash(big.NewInt(100)).Hex(),
			"[1].calls[1].returnData": common.BigToHash(big.NewInt(18)).Hex(),
			"[1].calls[2].returnData": common.BigToHash(big.NewInt(18)).Hex(),
			// The transfers: value 10 into Tracee, 1 wei into the first child.
			"[1].calls[1].logs[0].data": common.BigToHash(big.NewInt(10)).Hex(),
			"[1].calls[1].logs[1].data": common.BigToHash(big.NewInt(1)).Hex(),
		}},
		{name: "every transaction type, full transactions", req: func(*types.Header) map[string]any {
			auth, err := types.SignSetCode(devKeys[8].Private, types.SetCodeAuthorization{
				ChainID: *uint256.NewInt(31337), Address: childAddr, Nonce: 0})
			if err != nil {
				t.Fatal(err)
			}
			al := []any{map[string]any{"address": recipient, "storageKeys": []any{common.Hash{}.Hex()}}}
			return map[string]any{"returnFullTransactions": true, "traceTransfers": true, "blockStateCalls": []any{map[string]any{
				"stateOverrides": map[string]any{childAddr.Hex(): map[string]any{"code": hexutil.Encode(child.DeployedBytecode)}},
				"calls": []any{
					map[string]any{"from": sender, "to": recipient, "value": "0x2", "gasPrice": "0x3b9aca00"},
					// (gasPrice with an accessList: EIP-2930 since geth 1.17.10, legacy in
					// 1.17.8, so checked in TestSimulateEmber instead.)
					map[string]any{"from": sender, "to": recipient, "gasPrice": "0x1"},
					map[string]any{"from": sender, "to": recipient, "maxFeePerGas": "0x77359400", "maxPriorityFeePerGas": "0x1", "accessList": al},
					map[string]any{"from": sender, "to": devKeys[8].Address, "input": hexutil.Encode(fail), "authorizationList": []any{auth}},
				}}}}
		}, want: map[string]any{
			"[0].transactions[0].type": "0x0", "[0].transactions[1].type": "0x0", "[0].transactions[2].type": "0x2",
			"[0].transactions[3].type": "0x4", "[0].transactions[3].nonce": "0x3",
			// devKeys[8] now runs Child's code: fail() reverts.
			"[0].calls[3].status": "0x0", "[0].calls[3].error.message": "execution reverted: child says no",
		}},
		{name: "block overrides of number and time, gap filled", req: func(base *types.Header) map[string]any {
			return map[string]any{"blockStateCalls": []any{
				map[string]any{
					"blockOverrides": map[string]any{"number": hexU(base.Number.Uint64() + 4), "time": hexU(base.Time + 1000),
						"feeRecipient": recipient, "prevRandao": common.HexToHash("0x77").Hex(), "baseFeePerGas": "0x3b9aca00", "gasLimit": "0x1c9c380"},
					"stateOverrides": map[string]any{envAddr.Hex(): map[string]any{"code": hexutil.Encode(blockEnv)}},
					"calls":          []any{map[string]any{"from": sender, "to": envAddr}},
				},
				map[string]any{"calls": []any{map[string]any{"from": sender, "to": envAddr}}},
			}}
		}, envWords: func(base *types.Header) map[[2]int][2]uint64 {
			// Blocks base+1..base+3 fill the gap; base+4 is overridden, base+5
			// follows it 12 s later.
			n, tm := base.Number.Uint64(), base.Time
			return map[[2]int][2]uint64{{3, 0}: {n + 4, tm + 1000}, {4, 0}: {n + 5, tm + 1012}}
		}},
		{name: "reverted call and out of gas", req: func(*types.Header) map[string]any {
			return map[string]any{"blockStateCalls": []any{map[string]any{
				"stateOverrides": map[string]any{
					childAddr.Hex(): map[string]any{"code": hexutil.Encode(child.DeployedBytecode)},
					envAddr.Hex():   map[string]any{"code": hexutil.Encode(blockEnv)},
				},
				"calls": []any{
					map[string]any{"from": sender, "to": childAddr, "input": hexutil.Encode(fail)},
					// 10 gas after the intrinsic 21,000: out of gas at the first MSTORE.
					map[string]any{"from": sender, "to": envAddr, "gas": "0x5212"},
					map[string]any{"from": sender, "to": recipient, "value": "0x1"},
				},
			}}}
		}, want: map[string]any{
			"[0].calls[0].status": "0x0", "[0].calls[0].error.code": float64(3),
			"[0].calls[0].error.message": "execution reverted: child says no",
			"[0].calls[1].status":        "0x0", "[0].calls[1].error.code": float64(-32015), "[0].calls[1].error.message": "out of gas",
			"[0].calls[1].gasUsed": "0x5212", "[0].calls[2].status": "0x1",
		}},
		{name: "validation: nonce too high", code: -38011, req: func(*types.Header) map[string]any {
			return map[string]any{"validation": true, "blockStateCalls": []any{map[string]any{"calls": []any{
				map[string]any{"from": sender, "to": recipient, "nonce": "0x5", "maxFeePerGas": "0x174876e800"},
			}}}}
		}},
		{name: "validation: nonce too low", code: -38010, req: func(*types.Header) map[string]any {
			return map[string]any{"validation": true, "blockStateCalls": []any{map[string]any{
				"stateOverrides": map[string]any{sender.Hex(): map[string]any{"nonce": "0x3"}},
				"calls": []any{
					map[string]any{"from": sender, "to": recipient, "nonce": "0x1", "maxFeePerGas": "0x174876e800"},
				}}}}
		}},
		{name: "validation: insufficient funds", code: -38014, req: func(*types.Header) map[string]any {
			return map[string]any{"validation": true, "blockStateCalls": []any{map[string]any{"calls": []any{
				map[string]any{"from": fresh, "to": recipient, "value": "0x1", "maxFeePerGas": "0x174876e800"},
			}}}}
		}},
		{name: "block numbers out of order", code: -38020, req: func(base *types.Header) map[string]any {
			return map[string]any{"blockStateCalls": []any{
				map[string]any{"blockOverrides": map[string]any{"number": hexU(base.Number.Uint64() + 3)}},
				map[string]any{"blockOverrides": map[string]any{"number": hexU(base.Number.Uint64() + 2)}},
			}}
		}},
		{name: "timestamps out of order", code: -38021, req: func(base *types.Header) map[string]any {
			return map[string]any{"blockStateCalls": []any{
				map[string]any{"blockOverrides": map[string]any{"time": hexU(base.Time + 100)}},
				map[string]any{"blockOverrides": map[string]any{"time": hexU(base.Time + 100)}},
			}}
		}},
		{name: "more than 256 blocks", code: -38026, req: func(base *types.Header) map[string]any {
			return map[string]any{"blockStateCalls": []any{
				map[string]any{"blockOverrides": map[string]any{"number": hexU(base.Number.Uint64() + 257)}},
			}}
		}},
		{name: "block gas limit", code: -38015, req: func(*types.Header) map[string]any {
			return map[string]any{"blockStateCalls": []any{map[string]any{
				"blockOverrides": map[string]any{"gasLimit": "0x7530"},
				"calls": []any{
					map[string]any{"from": sender, "to": recipient, "gas": "0x5208"},
					map[string]any{"from": sender, "to": recipient, "gas": "0x5208"},
				}}}}
		}},
		{name: "empty input", code: -32602, req: func(*types.Header) map[string]any {
			return map[string]any{"blockStateCalls": []any{}}
		}},
	}
}

// TestSimulateMatchesGeth sends the same eth_simulateV1 requests to Ember and
// to geth --dev started from Ember's genesis and compares the answers field
// by field. What legitimately differs between the two chains is named in
// simChainSpecific and normalizeSim: hashes over the chains' own block data,
// state roots (the chains' states differ: geth has the system contracts and
// runs their system calls), the base block's fee recipient, and block
// numbers and timestamps, compared as offsets from each chain's base block.
//
// Ember follows go-ethereum v1.17.10, the library it builds with, where it
// differs from the 1.17.8 binary compared here; no case below touches those
// points, which TestSimulateEmber and the unit tests check instead:
// gasPrice with an accessList is an EIP-2930 transaction (1.17.8: legacy),
// unknown override keys are refused (1.17.8: ignored), and the log indexes
// after a call whose logs were dropped stay consecutive (1.17.8: a gap).
func TestSimulateMatchesGeth(t *testing.T) {
	t.Parallel()
	ember := StartDev(t)
	geth := StartGeth(t, emberGenesisForGeth(t, ember.Home))
	chains := []chainClient{{"ember", ember.RPC, ember.Eth}, {"geth", geth.RPC, geth.Eth}}

	for _, tc := range simCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			var answers [2]any
			var codes [2]int
			for i, c := range chains {
				base, err := c.eth.HeaderByNumber(ctx(t), nil)
				if err != nil {
					t.Fatal(err)
				}
				var raw json.RawMessage
				err = c.rpc.CallContext(ctx(t), &raw, "eth_simulateV1", tc.req(base), "latest")
				if err != nil {
					var rerr rpc.Error
					if !errors.As(err, &rerr) {
						t.Fatalf("%s: %v", c.name, err)
					}
					codes[i] = rerr.ErrorCode()
					answers[i] = map[string]any{"code": rerr.ErrorCode(), "message": normalizeSimError(rerr.Error())}
					continue
				}
				var v any
				if err := json.Unmarshal(raw, &v); err != nil {
					t.Fatal(err)
				}
				if tc.envWords != nil {
					checkEnvWords(t, c.name, v, tc.envWords(base))
				}
				answers[i] = normalizeSim(v, base)
				if i == 0 {
					for path, want := range tc.want {
						if got := jsonPath(answers[i], path); !reflect.DeepEqual(got, want) {
							t.Errorf("ember %s = %v, want %v", path, got, want)
						}
					}
				}
			}
			if d := jsonDiff(answers[0], answers[1], ""); d != "" {
				emberJSON, _ := json.MarshalIndent(answers[0], "", " ")
				gethJSON, _ := json.MarshalIndent(answers[1], "", " ")
				t.Errorf("differs from geth: %s\nember: %s\ngeth: %s", d, emberJSON, gethJSON)
			}
			if codes[0] != tc.code {
				t.Errorf("ember answered error code %d, want %d", codes[0], tc.code)
			}
			t.Logf("ember and geth agree (error code %d)", codes[0])
		})
	}
}

// checkEnvWords checks that blockEnv saw the block number and time each
// block of the answer says, then blanks those two words.
func checkEnvWords(t *testing.T, chain string, answer any, want map[[2]int][2]uint64) {
	t.Helper()
	blocks, _ := answer.([]any)
	for at, w := range want {
		block, _ := blocks[at[0]].(map[string]any)
		call, _ := block["calls"].([]any)[at[1]].(map[string]any)
		ret := common.FromHex(call["returnData"].(string))
		if len(ret) != 7*32 {
			t.Fatalf("%s: block %d call %d returned %x", chain, at[0], at[1], ret)
		}
		number, time := new(big.Int).SetBytes(ret[:32]).Uint64(), new(big.Int).SetBytes(ret[32:64]).Uint64()
		if number != w[0] || time != w[1] {
			t.Errorf("%s: block %d: NUMBER %d TIMESTAMP %d, want %d %d", chain, at[0], number, time, w[0], w[1])
		}
		call["returnData"] = "NUMBER TIMESTAMP checked; " + hexutil.Encode(ret[64:])
	}
}

// simChainSpecific are the fields whose values hash or name each chain's
// own block data, left out of the comparison.
var simChainSpecific = []string{"hash", "parentHash", "blockHash", "stateRoot", "miner"}

// normalizeSim drops simChainSpecific and turns block numbers and
// timestamps into offsets from the base block. A block's size is compared
// without its number and timestamp, whose RLP lengths differ between the
// chains (geth's genesis time is 0, Ember's base block is of today).
func normalizeSim(v any, base *types.Header) any {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range simChainSpecific {
			delete(v, k)
		}
		if size, ok := v["size"].(string); ok {
			v["size"] = fmt.Sprintf("%d + number + timestamp", hexutil.MustDecodeUint64(size)-
				rlpUintLen(v["number"])-rlpUintLen(v["timestamp"]))
		}
		for k, e := range v {
			switch k {
			case "number", "blockNumber":
				v[k] = offset(e, base.Number.Uint64())
			case "timestamp", "blockTimestamp":
				v[k] = offset(e, base.Time)
			default:
				v[k] = normalizeSim(e, base)
			}
		}
	case []any:
		for i, e := range v {
			v[i] = normalizeSim(e, base)
		}
	}
	return v
}

// jsonPath reads a value of decoded JSON at a path like "[1].calls[0].status".
func jsonPath(v any, path string) any {
	for _, part := range regexp.MustCompile(`\[\d+\]|[^.\[\]]+`).FindAllString(path, -1) {
		if strings.HasPrefix(part, "[") {
			var i int
			fmt.Sscanf(part, "[%d]", &i)
			arr, _ := v.([]any)
			if i >= len(arr) {
				return nil
			}
			v = arr[i]
			continue
		}
		m, _ := v.(map[string]any)
		v = m[part]
	}
	return v
}

// rlpUintLen is the RLP length of a JSON quantity.
func rlpUintLen(v any) uint64 {
	s, _ := v.(string)
	n, _ := hexutil.DecodeUint64(s)
	enc, _ := rlp.EncodeToBytes(n)
	return uint64(len(enc))
}

func offset(v any, from uint64) any {
	s, ok := v.(string)
	if !ok {
		return v
	}
	n, err := hexutil.DecodeUint64(s)
	if err != nil {
		return v
	}
	return fmt.Sprintf("base+%d", int64(n-from))
}

// normalizeSimError blanks the block numbers and timestamps of the ordering
// errors, which are each chain's own.
func normalizeSimError(msg string) string {
	if strings.Contains(msg, "must be in order") {
		return regexp.MustCompile(`\d+`).ReplaceAllString(msg, "N")
	}
	return msg
}

// simBlockJSON and simCallJSON read an eth_simulateV1 answer.
type simBlockJSON struct {
	Number          hexutil.Uint64    `json:"number"`
	Timestamp       hexutil.Uint64    `json:"timestamp"`
	Hash            common.Hash       `json:"hash"`
	ParentHash      common.Hash       `json:"parentHash"`
	Miner           common.Address    `json:"miner"`
	BaseFee         *hexutil.Big      `json:"baseFeePerGas"`
	GasUsed         hexutil.Uint64    `json:"gasUsed"`
	Withdrawals     types.Withdrawals `json:"withdrawals"`
	WithdrawalsRoot common.Hash       `json:"withdrawalsRoot"`
	Calls           []simCallJSON     `json:"calls"`
}

type simCallJSON struct {
	ReturnData hexutil.Bytes  `json:"returnData"`
	Logs       []types.Log    `json:"logs"`
	GasUsed    hexutil.Uint64 `json:"gasUsed"`
	Status     hexutil.Uint64 `json:"status"`
	Error      *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

const (
	// balanceCode returns BALANCE(calldata word 0).
	balanceCode = "0x5f35315f5260205ff3"
	// blockHashCode returns BLOCKHASH(calldata word 0).
	blockHashCode = "0x5f35405f5260205ff3"
)

// TestSimulateEmber checks what the comparison with geth cannot, since it
// depends on the chain: validation against Ember's base fee (with its
// floor) and the fees paid, BLOCKHASH across simulated and real blocks,
// withdrawals, moved precompiles, refused input, the call limits, and the
// RPC gas cap and EVM timeout on a node restarted with tight ones.
func TestSimulateEmber(t *testing.T) {
	t.Parallel()
	n := StartDev(t, "--empty-block-interval", "0")
	sender, reader := devKeys[7].Address, devKeys[8].Address
	payee := common.HexToAddress("0x00000000000000000000000000000000000000fe")
	probe := common.HexToAddress("0x00000000000000000000000000000000000000b1")
	word := func(a common.Address) string { return common.BytesToHash(a.Bytes()).Hex() }
	simulate := func(t *testing.T, req map[string]any) ([]simBlockJSON, error) {
		t.Helper()
		var out []simBlockJSON
		err := n.RPC.CallContext(ctx(t), &out, "eth_simulateV1", req, "latest")
		return out, err
	}
	mustSimulate := func(t *testing.T, req map[string]any) []simBlockJSON {
		t.Helper()
		out, err := simulate(t, req)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	wantErr := func(t *testing.T, req map[string]any, code int, msg string) {
		t.Helper()
		_, err := simulate(t, req)
		var rerr rpc.Error
		if !errors.As(err, &rerr) || rerr.ErrorCode() != code || err.Error() != msg {
			t.Fatalf("got %v, want %d %q", err, code, msg)
		}
	}
	withProbe := map[string]any{probe.Hex(): map[string]any{"code": balanceCode}}

	t.Run("validation charges the base fee and pays the tip", func(t *testing.T) {
		var baseFee hexutil.Big
		if err := n.RPC.Call(&baseFee, "eth_baseFee"); err != nil {
			t.Fatal(err)
		}
		bal0, _ := n.Eth.BalanceAt(ctx(t), sender, nil)
		tip, feeCap := gwei(1), new(big.Int).Mul(baseFee.ToInt(), big.NewInt(2))
		fees := map[string]any{"maxFeePerGas": hexutil.EncodeBig(feeCap), "maxPriorityFeePerGas": hexutil.EncodeBig(tip)}
		call := func(from common.Address, to common.Address, extra map[string]any) map[string]any {
			c := map[string]any{"from": from, "to": to}
			for k, v := range fees {
				c[k] = v
			}
			for k, v := range extra {
				c[k] = v
			}
			return c
		}
		blocks := mustSimulate(t, map[string]any{"validation": true, "blockStateCalls": []any{map[string]any{
			"blockOverrides": map[string]any{"feeRecipient": payee},
			"stateOverrides": withProbe,
			"calls": []any{
				call(sender, payee, map[string]any{"value": hexutil.EncodeBig(ether(1))}),
				call(reader, probe, map[string]any{"input": word(sender)}),
				call(reader, probe, map[string]any{"input": word(payee)}),
			},
		}}})
		b := blocks[0]
		if b.BaseFee.ToInt().Cmp(baseFee.ToInt()) != 0 {
			t.Fatalf("base fee %v, want the next block's %v", b.BaseFee, &baseFee)
		}
		price := new(big.Int).Add(baseFee.ToInt(), tip)
		wantSender := new(big.Int).Sub(bal0, ether(1))
		wantSender.Sub(wantSender, new(big.Int).Mul(price, big.NewInt(21000)))
		// The payee holds 1 ether and the tips of the first two calls.
		wantPayee := new(big.Int).Add(ether(1), new(big.Int).Mul(tip, big.NewInt(int64(21000+b.Calls[1].GasUsed))))
		if got := new(big.Int).SetBytes(b.Calls[1].ReturnData); got.Cmp(wantSender) != 0 {
			t.Errorf("sender balance %v, want %v", got, wantSender)
		}
		if got := new(big.Int).SetBytes(b.Calls[2].ReturnData); got.Cmp(wantPayee) != 0 {
			t.Errorf("fee recipient balance %v, want %v", got, wantPayee)
		}
		if b.GasUsed != 21000+b.Calls[1].GasUsed+b.Calls[2].GasUsed {
			t.Errorf("block gas used %d", b.GasUsed)
		}
	})

	t.Run("gasPrice with an accessList is an EIP-2930 transaction", func(t *testing.T) {
		// As geth 1.17.10 builds it (1.17.8 made it legacy, dropping the list).
		var out []struct {
			Transactions []struct {
				Type       hexutil.Uint64   `json:"type"`
				GasPrice   hexutil.Big      `json:"gasPrice"`
				AccessList types.AccessList `json:"accessList"`
			} `json:"transactions"`
		}
		err := n.RPC.Call(&out, "eth_simulateV1", map[string]any{"returnFullTransactions": true, "blockStateCalls": []any{map[string]any{"calls": []any{
			map[string]any{"from": sender, "to": payee, "gasPrice": "0x7", "accessList": []any{map[string]any{"address": payee, "storageKeys": []any{}}}},
		}}}}, "latest")
		if err != nil {
			t.Fatal(err)
		}
		tx := out[0].Transactions[0]
		if tx.Type != types.AccessListTxType || tx.GasPrice.ToInt().Int64() != 7 || len(tx.AccessList) != 1 || tx.AccessList[0].Address != payee {
			t.Errorf("tx %+v", tx)
		}
	})

	t.Run("log indexes run across the block, dropped logs leave no gap", func(t *testing.T) {
		logRevert, logStop := common.HexToAddress("0x00000000000000000000000000000000000000d1"), common.HexToAddress("0x00000000000000000000000000000000000000d2")
		blocks := mustSimulate(t, map[string]any{"blockStateCalls": []any{map[string]any{
			"stateOverrides": map[string]any{
				logRevert.Hex(): map[string]any{"code": "0x5f5fa05f5ffd"}, // LOG0, then REVERT
				logStop.Hex():   map[string]any{"code": "0x5f5fa000"},     // LOG0, STOP
			},
			"calls": []any{
				map[string]any{"to": logStop}, map[string]any{"to": logRevert}, map[string]any{"to": logStop},
			},
		}}})
		c := blocks[0].Calls
		if len(c[0].Logs) != 1 || c[0].Logs[0].Index != 0 || c[1].Status != 0 || len(c[1].Logs) != 0 ||
			len(c[2].Logs) != 1 || c[2].Logs[0].Index != 1 || c[2].Logs[0].TxIndex != 2 || c[2].Logs[0].BlockHash != blocks[0].Hash {
			t.Errorf("calls %+v", c)
		}
	})

	t.Run("BLOCKHASH sees the simulated blocks and the real chain", func(t *testing.T) {
		head, _ := n.Eth.HeaderByNumber(ctx(t), nil)
		num := func(u uint64) string { return common.BigToHash(new(big.Int).SetUint64(u)).Hex() }
		hashProbe := map[string]any{probe.Hex(): map[string]any{"code": blockHashCode}}
		blocks := mustSimulate(t, map[string]any{"blockStateCalls": []any{
			map[string]any{"stateOverrides": hashProbe, "calls": []any{map[string]any{"to": probe, "input": num(head.Number.Uint64())}}},
			map[string]any{"calls": []any{
				map[string]any{"to": probe, "input": num(head.Number.Uint64() + 1)},
				map[string]any{"to": probe, "input": num(head.Number.Uint64() + 2)}, // the block itself: zero
			}},
			// Two back: found by walking the simulated headers.
			map[string]any{"calls": []any{map[string]any{"to": probe, "input": num(head.Number.Uint64() + 1)}}},
		}})
		if blocks[0].ParentHash != head.Hash() || blocks[1].ParentHash != blocks[0].Hash {
			t.Fatalf("parent hashes %s %s", blocks[0].ParentHash, blocks[1].ParentHash)
		}
		for _, c := range []struct {
			got  hexutil.Bytes
			want common.Hash
		}{{blocks[0].Calls[0].ReturnData, head.Hash()}, {blocks[1].Calls[0].ReturnData, blocks[0].Hash}, {blocks[1].Calls[1].ReturnData, common.Hash{}},
			{blocks[2].Calls[0].ReturnData, blocks[0].Hash}} {
			if common.BytesToHash(c.got) != c.want {
				t.Errorf("BLOCKHASH = %s, want %s", c.got, c.want)
			}
		}
	})

	t.Run("withdrawals credit their recipients", func(t *testing.T) {
		w := common.HexToAddress("0x00000000000000000000000000000000000000c7")
		blocks := mustSimulate(t, map[string]any{"blockStateCalls": []any{
			map[string]any{"blockOverrides": map[string]any{"withdrawals": []any{
				map[string]any{"index": "0x0", "validatorIndex": "0x5", "address": w, "amount": "0x77359400"}, // 2e9 gwei
			}}},
			map[string]any{"stateOverrides": withProbe, "calls": []any{map[string]any{"to": probe, "input": word(w)}}},
		}})
		if len(blocks[0].Withdrawals) != 1 || blocks[0].WithdrawalsRoot == types.EmptyWithdrawalsHash {
			t.Errorf("withdrawals %v root %s", blocks[0].Withdrawals, blocks[0].WithdrawalsRoot)
		}
		if got := new(big.Int).SetBytes(blocks[1].Calls[0].ReturnData); got.Cmp(ether(2)) != 0 {
			t.Errorf("withdrawn balance %v, want 2 ether", got)
		}
	})

	t.Run("movePrecompileToAddress", func(t *testing.T) {
		identity, moved := common.BytesToAddress([]byte{4}), common.HexToAddress("0x0000000000000000000000000000000000001234")
		blocks := mustSimulate(t, map[string]any{"blockStateCalls": []any{map[string]any{
			"stateOverrides": map[string]any{identity.Hex(): map[string]any{"movePrecompileToAddress": moved}},
			"calls": []any{
				map[string]any{"to": moved, "input": "0xdeadbeef"},
				map[string]any{"to": identity, "input": "0xdeadbeef"},
			},
		}}})
		if got := blocks[0].Calls; got[0].ReturnData.String() != "0xdeadbeef" || len(got[1].ReturnData) != 0 {
			t.Errorf("moved identity %s, old address %s", got[0].ReturnData, got[1].ReturnData)
		}
	})

	t.Run("refused input", func(t *testing.T) {
		wantErr(t, map[string]any{"blockStateCalls": []any{map[string]any{"blockOverrides": map[string]any{"feeRecipent": payee}}}},
			-32602, `invalid argument 0: unknown field "feeRecipent" in block override`)
		wantErr(t, map[string]any{"blockStateCalls": []any{map[string]any{"stateOverrides": map[string]any{payee.Hex(): map[string]any{"balanse": "0x1"}}}}},
			-32602, `invalid argument 0: unknown field "balanse" in state override for `+payee.Hex())
		wantErr(t, map[string]any{"blockStateCalls": []any{map[string]any{"blockOverrides": map[string]any{"difficulty": "0x1"}}}},
			-32602, fmt.Sprintf("block %d: difficulty override is not allowed after the merge", mustHead(t, n)+1))
		calls := make([]any, 5001)
		for i := range calls {
			calls[i] = map[string]any{"to": payee}
		}
		wantErr(t, map[string]any{"blockStateCalls": []any{map[string]any{"calls": calls}}}, -38026, "too many calls in block: 5001 > 5000")
		blocks := make([]any, 257)
		for i := range blocks {
			blocks[i] = map[string]any{}
		}
		wantErr(t, map[string]any{"blockStateCalls": blocks}, -38026, "too many blocks")
		wantErr(t, map[string]any{"blockStateCalls": []any{map[string]any{"calls": []any{map[string]any{"to": payee, "chainId": "0x1"}}}}},
			-32000, "chainId does not match node's (have=1, want=31337)")
	})

	// A node with an RPC gas cap of 2e10 and an EVM time limit of 300 ms.
	n.Stop()
	setAppConfig(t, n, map[string]string{"gas-cap": "20000000000", "evm-timeout": `"300ms"`})
	n.Start("start")
	huge := map[string]any{"gasLimit": "0xffffffffff"}

	t.Run("the gas cap is a budget for the whole request", func(t *testing.T) {
		leftProbe := map[string]any{probe.Hex(): map[string]any{"code": gasLeftCode}}
		blocks := mustSimulate(t, map[string]any{"blockStateCalls": []any{
			map[string]any{"blockOverrides": huge, "stateOverrides": leftProbe, "calls": []any{map[string]any{"to": probe}}},
			map[string]any{"blockOverrides": huge, "calls": []any{map[string]any{"to": probe}}},
		}})
		first := new(big.Int).SetBytes(blocks[0].Calls[0].ReturnData).Uint64()
		second := new(big.Int).SetBytes(blocks[1].Calls[0].ReturnData).Uint64()
		if first != 20_000_000_000-21002 {
			t.Errorf("first call's gas left %d, want the cap less 21002", first)
		}
		if want := 20_000_000_000 - uint64(blocks[0].Calls[0].GasUsed) - 21002; second != want {
			t.Errorf("second call's gas left %d, want %d (the budget less the first call's use)", second, want)
		}
	})
	t.Run("evm-timeout ends an endless call", func(t *testing.T) {
		wantErr(t, map[string]any{"blockStateCalls": []any{map[string]any{
			"blockOverrides": huge,
			"stateOverrides": map[string]any{probe.Hex(): map[string]any{"code": loopCode}},
			"calls":          []any{map[string]any{"to": probe}},
		}}}, -32603, "execution aborted (timeout = 300ms)")
		if _, err := n.Eth.BlockNumber(ctx(t)); err != nil {
			t.Fatalf("server after a timed-out simulation: %v", err)
		}
	})
}

func mustHead(t *testing.T, n *Node) uint64 {
	t.Helper()
	h, err := n.Eth.BlockNumber(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	return h
}
