package service

import "github.com/emberchain/ember/explorer"

// tracerOf is the source's on-demand tracing, when it has any.
func tracerOf(src explorer.Source) explorer.Tracer {
	if t, ok := src.(explorer.Tracer); ok {
		return t
	}
	return nil
}
