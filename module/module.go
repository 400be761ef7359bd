// Package module is the shape of Ember's native modules: each module (bank,
// mint, distribution, slashing, staking; gov and upgrade to come) registers its
// messages, its begin- and end-block work, its genesis and its queries with
// the app through one Manager, as the Cosmos SDK's module manager,
// MsgServiceRouter and Begin/EndBlockers give each SDK module its room.
//
// All module state lives in the one state trie (in the storage of system
// accounts, through the EVM StateDB), so the AppHash covers it. Every hook
// takes the State or Reader interface, never the app, so a handler can run
// inside an EVM transaction (a vm.StateDB is a State).
//
// # Order
//
// The Manager holds its modules in a fixed order (native.Modules: bank,
// mint, distribution, slashing, staking: the SDK's begin-block order) and
// always calls them in that order. InitChain runs each module's
// InitGenesis, then the gentxs (package genutil). FinalizeBlock runs, in
// this sequence:
//
//  0. each module's PreBlock (upgrade plans), before the block's EVM
//     exists: the EVM then runs the chain config the state records;
//  1. each module's BeginBlock, on the block's state (its events are block
//     events);
//  2. the block's transactions, in block order: EVM ones through the
//     executor, native ones through native.Execute, whose messages run in
//     the transaction's order, each by the handler its type URL names;
//  3. the close of the EVM block (receipts; new accounts numbered);
//  4. each module's EndBlock (the validator updates CometBFT is told come
//     from here, in module order);
//  5. the commit of the state, whose root is the AppHash.
//
// A replay of a committed block for a tracer runs 1 and 2 again, up to the
// traced transaction, with the block's stored BlockInfo. An abci_query path a module registered is answered by
// that module.
package module

import (
	"fmt"

	abci "github.com/cometbft/cometbft/abci/types"
)

// Module is one native module. Beyond a name and its messages, a module
// implements any of BeginBlocker, EndBlocker, GenesisIniter and Querier.
type Module interface {
	// Name is the module's name, which is also its app_state section.
	Name() string
	// Msgs are the handlers of the messages the module executes, one per
	// type URL.
	Msgs() []*MsgHandler
}

// PreBlocker is a module with work before anything else of a block, even
// before the block's EVM is set up (the SDK's PreBlocker): the upgrade
// module applies a plan here, and a plan's migration may move the EVM to a
// new fork that the same block then runs.
type PreBlocker interface {
	PreBlock(st State, b *Block) error
}

// BeginBlocker is a module with work at the start of each block, before
// its first transaction.
type BeginBlocker interface {
	BeginBlock(st State, b *Block) error
}

// EndBlocker is a module with work at the end of each block, after its
// last transaction; it may change the validator set.
type EndBlocker interface {
	EndBlock(st State, b *Block) ([]abci.ValidatorUpdate, error)
}

// GenesisIniter is a module with genesis state.
type GenesisIniter interface {
	InitGenesis(g *Genesis) error
}

// Querier is a module that answers abci_query paths.
type Querier interface {
	Queries() []Query
}

// Manager holds the chain's modules in their order, routes their messages
// and queries, and calls their hooks in that order (see Order above).
type Manager struct {
	modules []Module
	router  *Router
	queries map[string]Query
}

// NewManager returns the manager of modules, in that order. Two handlers of
// one type URL or two queries of one path are a programming error: it
// panics.
func NewManager(modules ...Module) *Manager {
	m := &Manager{modules: modules, router: NewRouter(), queries: map[string]Query{}}
	for _, mod := range modules {
		for _, h := range mod.Msgs() {
			m.router.Register(h)
		}
		if q, ok := mod.(Querier); ok {
			for _, query := range q.Queries() {
				if _, dup := m.queries[query.Path]; dup {
					panic(fmt.Sprintf("module %s: query path %s registered twice", mod.Name(), query.Path))
				}
				m.queries[query.Path] = query
			}
		}
	}
	return m
}

// Modules are the modules, in order.
func (m *Manager) Modules() []Module { return m.modules }

// Router routes messages to their handlers.
func (m *Manager) Router() *Router { return m.router }

// InitGenesis runs each module's InitGenesis, in order.
func (m *Manager) InitGenesis(g *Genesis) error {
	for _, mod := range m.modules {
		if gi, ok := mod.(GenesisIniter); ok {
			if err := gi.InitGenesis(g); err != nil {
				return err
			}
		}
	}
	return nil
}

// PreBlock runs each module's PreBlock, in order.
func (m *Manager) PreBlock(st State, b *Block) error {
	for _, mod := range m.modules {
		if pb, ok := mod.(PreBlocker); ok {
			if err := pb.PreBlock(WithEvents(st, b.Events, ""), b); err != nil {
				return err
			}
		}
	}
	return nil
}

// BeginBlock runs each module's BeginBlock, in order.
func (m *Manager) BeginBlock(st State, b *Block) error {
	for _, mod := range m.modules {
		if bb, ok := mod.(BeginBlocker); ok {
			if err := bb.BeginBlock(WithEvents(st, b.Events, ""), b); err != nil {
				return err
			}
		}
	}
	return nil
}

// EndBlock runs each module's EndBlock, in order, and returns their
// validator updates in that order.
func (m *Manager) EndBlock(st State, b *Block) ([]abci.ValidatorUpdate, error) {
	var updates []abci.ValidatorUpdate
	for _, mod := range m.modules {
		if eb, ok := mod.(EndBlocker); ok {
			u, err := eb.EndBlock(WithEvents(st, b.Events, ""), b)
			if err != nil {
				return nil, err
			}
			updates = append(updates, u...)
		}
	}
	return updates, nil
}

// Query is the query a module registered at path, if any.
func (m *Manager) Query(path string) (Query, bool) {
	q, ok := m.queries[path]
	return q, ok
}
