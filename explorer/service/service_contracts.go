package service

import "github.com/emberchain/ember/explorer"

// chainReaderOf is the source's code/storage/call reader, nil when it has
// none (verification and proxy resolution then say so).
func chainReaderOf(src explorer.Source) explorer.ChainReader {
	r, _ := src.(explorer.ChainReader)
	return r
}
