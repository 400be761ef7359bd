//go:build upgradetest

package upgrade

// A binary built with -tags upgradetest is the "new binary" of the upgrade
// tests: it can apply TestUpgradeName.
func init() { Register(TestUpgradeName, TestMigration) }
