package rest

import (
	"testing"

	basev1beta1 "cosmossdk.io/api/cosmos/base/v1beta1"
	distrv1beta1 "cosmossdk.io/api/cosmos/distribution/v1beta1"
	mintv1beta1 "cosmossdk.io/api/cosmos/mint/v1beta1"
)

// TestMarshalEconomics: DecCoins and the mint's bytes-typed Decs are
// written as the SDK's gateway writes them, decimals with 18 places.
func TestMarshalEconomics(t *testing.T) {
	for _, c := range []struct {
		got  func() ([]byte, error)
		want string
	}{
		{func() ([]byte, error) {
			return marshal(&distrv1beta1.QueryCommunityPoolResponse{Pool: []*basev1beta1.DecCoin{{Denom: "aember", Amount: "20500000000000000000"}}})
		}, `{"pool":[{"denom":"aember","amount":"20.500000000000000000"}]}`},
		{func() ([]byte, error) {
			return marshal(&mintv1beta1.QueryInflationResponse{Inflation: []byte("130000000000000000")})
		}, `{"inflation":"0.130000000000000000"}`},
		{func() ([]byte, error) {
			return marshal(&mintv1beta1.QueryAnnualProvisionsResponse{AnnualProvisions: []byte("26000000000000000000")})
		}, `{"annual_provisions":"26.000000000000000000"}`},
	} {
		if got, err := c.got(); err != nil || string(got) != c.want {
			t.Errorf("got %s (%v), want %s", got, err, c.want)
		}
	}
}
