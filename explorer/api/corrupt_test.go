package api

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/emberchain/ember/explorer"
	"github.com/emberchain/ember/explorer/sqlstore"
)

// corruptChain is an explorer database (SQLite, through sqlstore) holding
// three verified contracts, one sound, one with an ABI and one with
// settings that are not JSON, and an NFT with two instances, one with sound
// metadata and one whose stored metadata is not JSON.
type corruptChain struct {
	handler                http.Handler
	log                    *bytes.Buffer
	sound, badABI, badSets common.Address
	nft                    common.Address
}

func newCorruptChain(t *testing.T) *corruptChain {
	t.Helper()
	ctx := context.Background()
	s, err := sqlstore.Open(ctx, filepath.Join(t.TempDir(), "explorer.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := &corruptChain{
		log:     new(bytes.Buffer),
		sound:   common.HexToAddress("0x00000000000000000000000000000000000c0001"),
		badABI:  common.HexToAddress("0x00000000000000000000000000000000000c0002"),
		badSets: common.HexToAddress("0x00000000000000000000000000000000000c0003"),
		nft:     common.HexToAddress("0x00000000000000000000000000000000000c0721"),
	}
	deployer := common.HexToAddress("0x00000000000000000000000000000000000a11ce")

	// Block 1 deploys the four contracts (one transaction each) and mints
	// NFTs 7 and 8 to the deployer.
	blocks := []*explorer.IndexedBlock{{Block: explorer.Block{Number: 0, Hash: common.Hash{1}, Time: 1_700_000_000,
		GasLimit: 30_000_000, Difficulty: new(big.Int), BurntFees: new(big.Int), PriorityFee: new(big.Int), TxFees: new(big.Int)}}}
	b := &explorer.IndexedBlock{Block: explorer.Block{Number: 1, Hash: common.Hash{2}, ParentHash: common.Hash{1}, Time: 1_700_000_001,
		GasLimit: 30_000_000, Difficulty: new(big.Int), BurntFees: new(big.Int), PriorityFee: new(big.Int), TxFees: new(big.Int)}}
	for i, addr := range []common.Address{c.sound, c.badABI, c.badSets, c.nft} {
		hash := common.BigToHash(big.NewInt(int64(100 + i)))
		b.Txs = append(b.Txs, explorer.Tx{Hash: hash, BlockNumber: 1, Index: i, From: deployer, Created: &addr,
			Value: new(big.Int), Gas: 100_000, GasUsed: 50_000, GasPrice: big.NewInt(1), Fee: big.NewInt(50_000),
			BurntFee: new(big.Int), Status: 1, Nonce: uint64(i), Input: []byte{0x60, byte(i)}})
		b.Contract = append(b.Contract, explorer.Creation{Address: addr, Creator: deployer, TxHash: hash})
		b.Touched = append(b.Touched, explorer.Touched{Address: addr, Before: new(big.Int), After: new(big.Int)})
	}
	b.Block.TxCount = len(b.Txs)
	b.Touched = append(b.Touched, explorer.Touched{Address: deployer, Before: big.NewInt(1e9), After: big.NewInt(1e9 - 200_000)})
	name := "Ember NFT"
	b.Tokens = []explorer.TokenMeta{{Address: c.nft, Type: explorer.ERC721, Info: true, Name: &name, Symbol: &name}}
	for i, id := range []int64{7, 8} {
		b.TokenTransfers = append(b.TokenTransfers, explorer.TokenTransfer{BlockNumber: 1, BlockHash: b.Block.Hash, LogIndex: uint(i),
			TxHash: b.Txs[3].Hash, Time: b.Block.Time, Token: c.nft, Type: explorer.ERC721, To: deployer,
			TokenID: big.NewInt(id), Amount: big.NewInt(1)})
	}
	if err := s.WriteBlocks(ctx, append(blocks, b)); err != nil {
		t.Fatal(err)
	}

	runs := int64(200)
	for addr, rows := range map[common.Address][2]string{
		c.sound:   {`[{"type":"function","name":"f","inputs":[],"outputs":[],"stateMutability":"nonpayable"}]`, `{"evmVersion":"cancun"}`},
		c.badABI:  {`[{"type":"function","name":"f","inp`, `{"evmVersion":"cancun"}`},
		c.badSets: {`[]`, `{"evmVersion":`},
	} {
		code := addr.Bytes()
		if err := s.SaveVerifiedContract(ctx, &explorer.VerifiedContract{
			Address: addr, Name: "C", Language: "solidity", CompilerVersion: "v0.8.28+commit.7893614a", EVMVersion: "cancun",
			OptimizerRuns: &runs, LicenseType: "mit", ABI: rows[0], FilePath: "C.sol", SourceCode: "contract C {}",
			Settings: rows[1], Metadata: "{}", DeployedCode: code, CodeHash: crypto.Keccak256Hash(code), FullMatch: true, VerifiedAt: 1_700_000_002,
		}); err != nil {
			t.Fatal(err)
		}
	}
	uri := "data:,"
	if err := s.SetInstanceMetadata(ctx, c.nft, big.NewInt(7), &uri, []byte(`{"name":"seven","image":"ipfs://7"}`), nil); err != nil {
		t.Fatal(err)
	}
	if err := s.SetInstanceMetadata(ctx, c.nft, big.NewInt(8), &uri, []byte(`{"name":"eig`), nil); err != nil {
		t.Fatal(err)
	}

	c.handler = Handler(&Backend{
		Store:  s,
		Status: func() (uint64, bool, uint64, bool) { return 1, true, 1, true },
		Now:    func() time.Time { return time.Unix(1_700_000_100, 0) },
	}, slog.New(slog.NewTextHandler(c.log, nil)))
	return c
}

// TestCorruptContractRowIsAnError: a verified contract whose stored ABI or
// compiler settings are not JSON is a 500 naming what is corrupt, and
// logged; it is not shown as a verified contract without methods. The
// sound row beside them answers as before.
func TestCorruptContractRowIsAnError(t *testing.T) {
	c := newCorruptChain(t)
	code, body := get(t, c.handler, "/api/v2/smart-contracts/"+c.sound.Hex())
	var sound struct {
		IsVerified       bool           `json:"is_verified"`
		ABI              []obj          `json:"abi"`
		CompilerSettings map[string]any `json:"compiler_settings"`
	}
	if err := json.Unmarshal(body, &sound); code != http.StatusOK || err != nil || !sound.IsVerified || len(sound.ABI) != 1 ||
		sound.ABI[0]["name"] != "f" || sound.CompilerSettings["evmVersion"] != "cancun" {
		t.Fatalf("sound contract: %d %s", code, body)
	}
	if code, body := get(t, c.handler, "/api/v2/smart-contracts/"+c.sound.Hex()+"/methods-write"); code != http.StatusOK ||
		!strings.Contains(string(body), `"method_id":"26121ff0"`) {
		t.Fatalf("sound contract's methods: %d %s", code, body)
	}

	for _, tc := range []struct{ path, what string }{
		{"/api/v2/smart-contracts/" + c.badABI.Hex(), "ABI of verified contract " + c.badABI.Hex()},
		{"/api/v2/smart-contracts/" + c.badABI.Hex() + "/methods-read", "ABI of verified contract " + c.badABI.Hex()},
		{"/api/v2/smart-contracts/" + c.badABI.Hex() + "/methods-write", "ABI of verified contract " + c.badABI.Hex()},
		{"/api/v2/smart-contracts/" + c.badSets.Hex(), "compiler settings of verified contract " + c.badSets.Hex()},
	} {
		c.log.Reset()
		code, body := get(t, c.handler, tc.path)
		want := `{"message":"Internal server error: corrupt stored data: ` + tc.what + `"}`
		if code != http.StatusInternalServerError || string(body) != want {
			t.Errorf("%s: %d %s, want 500 %s", tc.path, code, body, want)
		}
		if log := c.log.String(); !strings.Contains(log, "level=ERROR") || !strings.Contains(log, "corrupt "+tc.what+": ") {
			t.Errorf("%s: logged %q", tc.path, log)
		}
	}
}

// TestCorruptInstanceMetadataIsNull: an NFT instance whose stored metadata
// is not JSON shows no metadata (null, as the schema allows and Blockscout
// shows metadata it could not read) and the fault is logged; the lists the
// instance appears in still answer, and a sound instance keeps its
// metadata.
func TestCorruptInstanceMetadataIsNull(t *testing.T) {
	c := newCorruptChain(t)
	type instance struct {
		ID       string         `json:"id"`
		Metadata map[string]any `json:"metadata"`
		ImageURL *string        `json:"image_url"`
	}
	code, body := get(t, c.handler, "/api/v2/tokens/"+c.nft.Hex()+"/instances/7")
	var seven instance
	if err := json.Unmarshal(body, &seven); code != http.StatusOK || err != nil || seven.Metadata["name"] != "seven" ||
		seven.ImageURL == nil || *seven.ImageURL != "ipfs://7" {
		t.Fatalf("sound instance: %d %s", code, body)
	}
	if log := c.log.String(); log != "" {
		t.Fatalf("a sound instance logged %q", log)
	}

	code, body = get(t, c.handler, "/api/v2/tokens/"+c.nft.Hex()+"/instances/8")
	if code != http.StatusOK || !strings.Contains(string(body), `"metadata":null`) || !strings.Contains(string(body), `"image_url":null`) {
		t.Fatalf("corrupt instance: %d %s", code, body)
	}
	wantLog := "corrupt stored data: metadata of token instance shown as null"
	if log := c.log.String(); !strings.Contains(log, "level=ERROR") || !strings.Contains(log, wantLog) ||
		!strings.Contains(log, "token="+c.nft.Hex()) || !strings.Contains(log, "id=8") {
		t.Fatalf("corrupt instance logged %q", log)
	}

	// Lists that embed the instances answer, the corrupt one without
	// metadata.
	code, body = get(t, c.handler, "/api/v2/tokens/"+c.nft.Hex()+"/instances")
	var list struct{ Items []instance }
	if err := json.Unmarshal(body, &list); code != http.StatusOK || err != nil || len(list.Items) != 2 {
		t.Fatalf("instances: %d %s", code, body)
	}
	for _, in := range list.Items {
		if (in.ID == "7") != (in.Metadata != nil) {
			t.Errorf("instance %s in the list: metadata %v", in.ID, in.Metadata)
		}
	}
	code, body = get(t, c.handler, "/api/v2/tokens/"+c.nft.Hex()+"/transfers")
	if code != http.StatusOK || strings.Count(string(body), `"token_instance":{`) != 2 || !strings.Contains(string(body), `"metadata":null`) {
		t.Fatalf("transfers: %d %s", code, body)
	}
}
