// Package upgrade is Ember's x/upgrade: software-upgrade plans that
// governance schedules, the halt at a plan's height for a binary that
// cannot apply it, and the migrations a binary that can runs once.
package upgrade

import (
	"fmt"
	"sort"
	"sync"

	"github.com/emberchain/ember/module"
)

// Context is what a migration gets beside the state: the plan and the
// block it applies in (the plan's height).
type Context struct {
	Plan   Plan
	Height int64
	Time   uint64 // the block's EVM timestamp
}

// Plan is a software-upgrade plan (cosmos.upgrade.v1beta1.Plan).
type Plan struct {
	Name   string
	Height int64
	Info   string
}

// Handler migrates the state for one plan. It runs once, at the plan's
// height, in the pre-block work of that block, before the block's EVM is
// set up; an error halts the chain there.
type Handler func(st module.State, c *Context) error

var (
	mu       sync.RWMutex
	handlers = map[string]Handler{}
	builtin  = map[string]bool{}
)

// Register makes this binary able to apply the plan called name. Two
// handlers of one name are a programming error: it panics. Binaries
// register their handlers from init functions.
func Register(name string, h Handler) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := handlers[name]; dup {
		panic(fmt.Sprintf("upgrade handler %q registered twice", name))
	}
	handlers[name] = h
}

// RegisterBuiltin registers h as Register does, for a plan that every
// binary of this line carries from its first release (the "osaka" fork
// switch): the binary that runs the chain when governance schedules it
// applies it, so it runs the blocks before the plan's height as well,
// where a plan's new binary refuses to (the SDK's "BINARY UPDATED BEFORE
// TRIGGER").
func RegisterBuiltin(name string, h Handler) {
	Register(name, h)
	mu.Lock()
	defer mu.Unlock()
	builtin[name] = true
}

// Builtin tells whether the plan called name has a built-in handler.
func Builtin(name string) bool {
	mu.RLock()
	defer mu.RUnlock()
	return builtin[name]
}

// HandlerFor is the handler of the plan called name, if this binary has one.
func HandlerFor(name string) (Handler, bool) {
	mu.RLock()
	defer mu.RUnlock()
	h, ok := handlers[name]
	return h, ok
}

// Known are the names of the plans this binary can apply, sorted.
func Known() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(handlers))
	for n := range handlers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
