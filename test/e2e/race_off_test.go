//go:build !race

package e2e

import "time"

// raceBuild and callTimeout: see race_on_test.go.
const (
	raceBuild   = false
	callTimeout = time.Minute
)
