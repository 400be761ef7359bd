package filters

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

func TestLogListEncodesLikeTypesLog(t *testing.T) {
	cases := []logList{
		nil,
		{},
		{
			{Address: common.Address{1}, Topics: []common.Hash{{2}, {3}}, Data: make([]byte, 32), BlockNumber: 123456,
				TxHash: common.Hash{4}, TxIndex: 3, BlockHash: common.Hash{5}, BlockTimestamp: 1700000000, Index: 17},
			{}, // zero values: nil topics, nil data
			{Topics: []common.Hash{}, Data: []byte{}, Removed: true, BlockNumber: math.MaxUint64, Index: 0},
			{Address: common.HexToAddress("0xffffffffffffffffffffffffffffffffffffffff"), Data: []byte{0, 0xab, 0xff}, TxIndex: 255},
		},
	}
	for i, c := range cases {
		got, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal([]*types.Log(c))
		if string(got) != string(want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
