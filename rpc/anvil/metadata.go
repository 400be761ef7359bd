package anvil

import (
	"crypto/rand"
	"encoding/json"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
)

// Metadata is hardhat_metadata's (and anvil_metadata's) answer, in anvil's
// shape. hardhat-ethers asks for it to tell a Hardhat-like dev node (it
// then polls for receipts every 50 ms instead of 500 ms), as it does of
// anvil.
type Metadata struct {
	ClientVersion     string                  `json:"clientVersion"`
	ChainID           uint64                  `json:"chainId"`
	InstanceID        common.Hash             `json:"instanceId"`
	LatestBlockNumber uint64                  `json:"latestBlockNumber"`
	LatestBlockHash   common.Hash             `json:"latestBlockHash"`
	ForkedNetwork     *struct{}               `json:"forkedNetwork"` // always null: no forking
	Snapshots         map[string]SnapshotMark `json:"snapshots"`     // by id, as "0x0"
}

// SnapshotMark is the block an evm_snapshot marked: [number, hash] in JSON,
// as anvil writes it.
type SnapshotMark struct {
	Number uint64
	Hash   common.Hash
}

// MarshalJSON writes [number, "0x…hash"].
func (m SnapshotMark) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{m.Number, m.Hash})
}

// SetClientVersion is the web3_clientVersion hardhat_metadata reports.
func (api *API) SetClientVersion(v string) {
	api.mu.Lock()
	api.version = v
	api.mu.Unlock()
}

// Metadata is hardhat_metadata and anvil_metadata: the instance id is
// random per process, as anvil's is.
func (a *Anvil) Metadata() *Metadata {
	api := a.api
	head := api.b.Head()
	api.mu.Lock()
	defer api.mu.Unlock()
	if api.instance == (common.Hash{}) {
		_, _ = rand.Read(api.instance[:])
	}
	m := &Metadata{
		ClientVersion: api.version, ChainID: api.b.ChainConfig().ChainID.Uint64(), InstanceID: api.instance,
		LatestBlockNumber: head.Number.Uint64(), LatestBlockHash: head.Hash(),
		Snapshots: make(map[string]SnapshotMark, len(api.snaps.heights)),
	}
	for id, h := range api.snaps.heights {
		mark := SnapshotMark{Number: h}
		if hdr := api.b.HeaderByNumber(h); hdr != nil {
			mark.Hash = hdr.Hash()
		}
		m.Snapshots[hexutil.EncodeUint64(id)] = mark
	}
	return m
}
