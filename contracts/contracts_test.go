package contracts

import (
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func TestLoad(t *testing.T) {
	tok := MustLoad("EmberToken")
	if _, ok := tok.ABI.Methods["balanceOf"]; !ok {
		t.Fatal("EmberToken ABI has no balanceOf")
	}
	data, err := tok.DeployData(big.NewInt(1000))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) != len(tok.Bytecode)+32 || new(big.Int).SetBytes(data[len(data)-32:]).Int64() != 1000 {
		t.Fatalf("constructor argument not appended: %d bytes", len(data))
	}
	call, _ := tok.ABI.Pack("balanceOf", common.HexToAddress("0x01"))
	if len(call) != 36 || common.Bytes2Hex(call[:4]) != "70a08231" {
		t.Fatalf("balanceOf selector: %x", call[:4])
	}
	nft := MustLoad("EmberNFT")
	if _, ok := nft.ABI.Methods["mint"]; !ok || len(nft.DeployedBytecode) == 0 {
		t.Fatal("EmberNFT artifact incomplete")
	}
	if _, err := Load("Nope"); err == nil {
		t.Fatal("unknown contract loaded")
	}
}

// TestArtifactsCurrent recompiles src/ with the pinned solc-js (npm) and
// checks the committed artifacts are what the sources compile to.
func TestArtifactsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("needs Node.js and npm: skipped with -short")
	}
	if _, err := os.Stat(filepath.Join("node_modules", "solc")); err != nil {
		install := exec.Command("npm", "install", "--no-audit", "--no-fund")
		if out, err := install.CombinedOutput(); err != nil {
			t.Fatalf("npm install in contracts/: %v\n%s", err, out)
		}
	}
	if out, err := exec.Command("node", "build.mjs", "--check").CombinedOutput(); err != nil {
		t.Fatalf("artifacts differ from src/ (run make contracts): %v\n%s", err, out)
	}
}
