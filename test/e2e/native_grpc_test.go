package e2e

import (
	"encoding/base64"
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"testing"
	"time"

	authv1beta1 "cosmossdk.io/api/cosmos/auth/v1beta1"
	bankv1beta1 "cosmossdk.io/api/cosmos/bank/v1beta1"
	cmtservice "cosmossdk.io/api/cosmos/base/tendermint/v1beta1"
	stakingv1beta1 "cosmossdk.io/api/cosmos/staking/v1beta1"
	txv1beta1 "cosmossdk.io/api/cosmos/tx/v1beta1"
	"github.com/ethereum/go-ethereum/core/types"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"github.com/emberchain/ember/accounts"
	"github.com/emberchain/ember/cosmosapi"
	"github.com/emberchain/ember/grpcapi"
	"github.com/emberchain/ember/internal/wait"
)

// TestNativeGRPC: the auth and bank query services answer what REST
// answers, at the latest height and at a height named in the metadata; the
// staking, tx and tendermint services answer over gRPC too; reflection
// lists every service.
func TestNativeGRPC(t *testing.T) {
	t.Parallel()
	n := StartDev(t)
	key := devKeys[0]
	// A first block (height 0 in the metadata would mean "latest").
	first, err := types.SignNewTx(devKeys[8].Private, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(31337), Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: gasPrice, Gas: 21000, To: &devKeys[8].Address})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Eth.SendTransaction(ctx(t), first); err != nil {
		t.Fatal(err)
	}
	n.WaitReceipt(t, first.Hash())
	// One EVM tx so the account has a public key and sequence 1.
	tx, err := types.SignNewTx(key.Private, types.LatestSignerForChainID(big.NewInt(31337)), &types.DynamicFeeTx{
		ChainID: big.NewInt(31337), Nonce: 0, GasTipCap: big.NewInt(1), GasFeeCap: gasPrice, Gas: 21000, To: &devKeys[9].Address, Value: big.NewInt(42)})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Eth.SendTransaction(ctx(t), tx); err != nil {
		t.Fatal(err)
	}
	receipt := n.WaitReceipt(t, tx.Hash())

	conn, err := grpc.NewClient(n.GRPC, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	auth := authv1beta1.NewQueryClient(conn)
	bank := bankv1beta1.NewQueryClient(conn)
	bech := accounts.Bech32("ember", key.Address)

	// Account, against REST's JSON.
	var header metadata.MD
	res, err := auth.Account(ctx(t), &authv1beta1.QueryAccountRequest{Address: bech}, grpc.Header(&header))
	if err != nil {
		t.Fatal(err)
	}
	base, codeHash, err := cosmosapi.UnpackEthAccount(res.Account)
	if err != nil {
		t.Fatal(err)
	}
	// CometBFT may commit a block between the two reads: REST reads at the
	// height gRPC read.
	var at []string
	if h := header.Get(grpcapi.HeightKey); len(h) == 1 {
		at = []string{"x-cosmos-block-height", h[0]}
	}
	_, body, restHeader := n.restGet(t, "/cosmos/auth/v1beta1/accounts/"+bech, at...)
	var rest struct {
		Account accounts.EthAccount `json:"account"`
	}
	if err := json.Unmarshal([]byte(body), &rest); err != nil {
		t.Fatal(err)
	}
	ra := rest.Account.BaseAccount
	if base.Address != ra.Address || strconv.FormatUint(base.AccountNumber, 10) != ra.AccountNumber || strconv.FormatUint(base.Sequence, 10) != ra.Sequence ||
		base.Sequence != 1 || codeHash != rest.Account.CodeHash || base.PubKey.GetTypeUrl() != accounts.PubKeyType || ra.PubKey == nil {
		t.Fatalf("gRPC account %v (code hash %s), REST %s", base, codeHash, body)
	}
	// The key's Any value is cosmos.crypto.secp256k1.PubKey's wire shape: 0x0a 0x21 <33 bytes>.
	if v := base.PubKey.Value; len(v) != 35 || v[0] != 0x0a || v[1] != 33 || base64.StdEncoding.EncodeToString(v[2:]) != base64.StdEncoding.EncodeToString(ra.PubKey.Key) {
		t.Fatalf("public key %x, REST %x", base.PubKey.Value, ra.PubKey.Key)
	}
	if got, want := header.Get(grpcapi.HeightKey), restHeader.Get("Grpc-Metadata-X-Cosmos-Block-Height"); len(got) != 1 || got[0] != want {
		t.Fatalf("height metadata %v, REST header %q", got, want)
	}

	// Balance now and at the height of the transfer's parent.
	for _, height := range []string{"", strconv.FormatUint(receipt.BlockNumber.Uint64()-1, 10)} {
		c := ctx(t)
		hdr := []string{}
		if height != "" {
			c = metadata.AppendToOutgoingContext(c, "x-cosmos-block-height", height)
			hdr = []string{"x-cosmos-block-height", height}
		}
		var h metadata.MD
		bal, err := bank.Balance(c, &bankv1beta1.QueryBalanceRequest{Address: key.Address.Hex(), Denom: "aember"}, grpc.Header(&h))
		if err != nil {
			t.Fatal(err)
		}
		if height == "" && len(h.Get("x-cosmos-block-height")) == 1 {
			// CometBFT may commit a block between the two reads: REST reads
			// at the height gRPC read.
			hdr = []string{"x-cosmos-block-height", h.Get("x-cosmos-block-height")[0]}
		}
		_, body, rh := n.restGet(t, "/cosmos/bank/v1beta1/balances/"+bech+"/by_denom?denom=aember", hdr...)
		var rb struct {
			Balance struct{ Denom, Amount string } `json:"balance"`
		}
		if err := json.Unmarshal([]byte(body), &rb); err != nil {
			t.Fatal(err)
		}
		if bal.Balance.Denom != "aember" || bal.Balance.Amount != rb.Balance.Amount || h.Get("x-cosmos-block-height")[0] != rh.Get("Grpc-Metadata-X-Cosmos-Block-Height") {
			t.Fatalf("height %q: gRPC %v (%v), REST %s", height, bal.Balance, h, body)
		}
		evm, err := n.Eth.BalanceAt(ctx(t), key.Address, nil)
		if err != nil {
			t.Fatal(err)
		}
		if height == "" && bal.Balance.Amount != evm.String() {
			t.Fatalf("gRPC balance %s, eth_getBalance %v", bal.Balance.Amount, evm)
		}
		if height != "" && bal.Balance.Amount != "10000000000000000000000" {
			t.Fatalf("balance before the transfer %s, want the genesis 10^22", bal.Balance.Amount)
		}
	}

	// Errors carry gRPC codes.
	_, err = auth.Account(ctx(t), &authv1beta1.QueryAccountRequest{Address: "ember1nope"})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("bad address: %v", err)
	}
	_, err = auth.Account(ctx(t), &authv1beta1.QueryAccountRequest{Address: accounts.Bech32("ember", [20]byte{0xde, 0xad})})
	if status.Code(err) != codes.NotFound || status.Convert(err).Message() != "account "+accounts.Bech32("ember", [20]byte{0xde, 0xad})+" not found" {
		t.Fatalf("unknown account: %v", err)
	}
	_, err = bank.Balance(ctx(t), &bankv1beta1.QueryBalanceRequest{Address: bech})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("no denom: %v", err)
	}

	// Staking, tx and tendermint: the same answers as REST and CometBFT.
	vals, err := stakingv1beta1.NewQueryClient(conn).Validators(ctx(t), &stakingv1beta1.QueryValidatorsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vals.Validators) != 1 || vals.Validators[0].Tokens != "10000000000000000000" || vals.Validators[0].Status != stakingv1beta1.BondStatus_BOND_STATUS_BONDED ||
		vals.Validators[0].OperatorAddress != "embervaloper17w0adeg64ky0daxwd2ugyuneellmjgnxwukud9" {
		t.Fatalf("validators: %v", vals.Validators)
	}
	// CometBFT indexes a block's txs after its commit: wait for the index.
	found := wait.For(t, 10*time.Second, "GetTxsEvent to find "+tx.Hash().Hex(), func() (*txv1beta1.GetTxsEventResponse, error) {
		found, err := txv1beta1.NewServiceClient(conn).GetTxsEvent(ctx(t), &txv1beta1.GetTxsEventRequest{Query: "ethereum_tx.ethereumTxHash='" + tx.Hash().Hex() + "'"})
		if err != nil {
			t.Fatal(err)
		}
		return found, wait.Check(found.GetTotal() != 0, "total 0")
	})
	if len(found.TxResponses) != 1 || found.TxResponses[0].Height != receipt.BlockNumber.Int64() || found.TxResponses[0].Code != 0 || found.Total != 1 {
		t.Fatalf("GetTxsEvent: %v", found)
	}
	blk, err := cmtservice.NewServiceClient(conn).GetBlockByHeight(ctx(t), &cmtservice.GetBlockByHeightRequest{Height: receipt.BlockNumber.Int64()})
	if err != nil {
		t.Fatal(err)
	}
	if blk.SdkBlock.Header.Height != receipt.BlockNumber.Int64() || blk.SdkBlock.Header.ChainId != devChainID || len(blk.SdkBlock.Data.Txs) != 1 {
		t.Fatalf("GetBlockByHeight: %v", blk.SdkBlock.Header)
	}
	if _, err := cmtservice.NewServiceClient(conn).GetBlockByHeight(ctx(t), &cmtservice.GetBlockByHeightRequest{Height: 1 << 40}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("future block: %v", err)
	}

	// Reflection lists every service.
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	rr, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range rr.GetListServicesResponse().GetService() {
		names = append(names, s.Name)
	}
	for _, want := range []string{"cosmos.auth.v1beta1.Query", "cosmos.bank.v1beta1.Query", "cosmos.staking.v1beta1.Query",
		"cosmos.tx.v1beta1.Service", "cosmos.base.tendermint.v1beta1.Service"} {
		if !slices.Contains(names, want) {
			t.Fatalf("reflection lists %v, missing %s", names, want)
		}
	}
}
