package txpool

import "time"

// Config bounds the pool. The names and defaults follow geth's legacy pool
// (core/txpool/legacypool), counted in transactions rather than 32 KiB slots.
type Config struct {
	// PriceBump is the percentage by which a replacement must raise both the
	// fee cap and the tip of the transaction it replaces.
	PriceBump uint64
	// AccountSlots is the number of pending transactions per account that
	// are evicted last: when the pending pool is full, a new transaction
	// first displaces the tail of an account holding more than this.
	AccountSlots int
	// GlobalSlots is the most pending transactions (CometBFT's mempool holds
	// them; keep its mempool.size at least this).
	GlobalSlots int
	// AccountQueue is the most queued transactions of one account.
	AccountQueue int
	// GlobalQueue is the most queued transactions.
	GlobalQueue int
	// Lifetime is how long an account's queued transactions are kept
	// without a new transaction from it.
	Lifetime time.Duration
}

// DefaultConfig is geth's defaults, except GlobalSlots: 5,000 (geth 4,096 +
// 1,024 slots), CometBFT's default mempool size, so the pool's limit, with
// its eviction of the cheapest, is the one that binds.
func DefaultConfig() Config {
	return Config{
		PriceBump:    10,
		AccountSlots: 16,
		GlobalSlots:  5000,
		AccountQueue: 64,
		GlobalQueue:  1024,
		Lifetime:     3 * time.Hour,
	}
}

// withDefaults fills zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.PriceBump == 0 {
		c.PriceBump = d.PriceBump
	}
	if c.AccountSlots <= 0 {
		c.AccountSlots = d.AccountSlots
	}
	if c.GlobalSlots <= 0 {
		c.GlobalSlots = d.GlobalSlots
	}
	if c.AccountQueue <= 0 {
		c.AccountQueue = d.AccountQueue
	}
	if c.GlobalQueue <= 0 {
		c.GlobalQueue = d.GlobalQueue
	}
	if c.Lifetime <= 0 {
		c.Lifetime = d.Lifetime
	}
	return c
}
