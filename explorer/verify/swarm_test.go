package verify

import (
	"encoding/hex"
	"testing"
)

// TestSwarmHashes checks solc's own bzzr0 and bzzr1 test vectors
// (libsolutil SwarmHash tests).
func TestSwarmHashes(t *testing.T) {
	zeros := func(n int) []byte { return make([]byte, n) }
	seq := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i % 255)
		}
		return b
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{nil, "011b4d03dd8c01f1049143cf9c4c817e4b167f1d1b83e5c6f0f10d89ba1e7bce"},
		{zeros(0x1000 - 1), "32f0faabc4265ac238cd945087133ce3d7e9bb2e536053a812b5373c54043adb"},
		{zeros(0x1000), "411dd45de7246e94589ff5888362c41e85bd3e582a92d0fda8f0e90b76439bec"},
		{zeros(0x1000 + 1), "69754a0098432bbc2e84fe1205276870748a61a065ab6ef44d6a2e7b13ce044d"},
		{zeros(0x2000), "f00222373ff82d0a178dc6271c78953e9c88f74130a52d401f5ec51475f63c43"},
		{zeros(0x80020), "ee9ffca246e70d3704740ba4df450fa6988d14a1c2439c7e734c7a77a4eb6fd3"},
		{zeros(2095104), "a9958184589fc11b4027a4c233e777ebe2e99c66f96b74aef2a0638a94dd5439"},
	} {
		if got := hex.EncodeToString(Bzzr0Hash(c.data)); got != c.want {
			t.Errorf("bzzr0 of %d bytes: %s, want %s", len(c.data), got, c.want)
		}
	}
	for _, c := range []struct {
		data []byte
		want string
	}{
		{nil, "0000000000000000000000000000000000000000000000000000000000000000"},
		{zeros(1), "fe60ba40b87599ddfb9e8947c1c872a4a1a5b56f7d1b80f0a646005b38db52a5"},
		{[]byte("hello world"), "92672a471f4419b255d7cb0cf313474a6f5856fb347c5ece85fb706d644b630f"},
		{zeros(65), "6ab1eaa91095215e30cacf47131d06ce5e9fc01611e406409705e190ee4440c6"},
		{zeros(4096), "09ae927d0f3aaa37324df178928d3826820f3dd3388ce4aaebfc3af410bde23a"},
		{zeros(4097), "c082943c4cb8a97c67947f290f5421cf4c61d021eb303c8df77de6fe208df516"},
		{zeros(4096 * 128 * 2), "f89af84ac550cdaa79639d5f6a1591ff1c9b3cb5d1fc55651ca63d4f80375447"},
		{seq(4096), "c10090961e7682a10890c334d759a28426647141213abda93b096b892824d2ef"},
		{seq(4096*128 + 33), "c2489aebad937b19384b61c7bd4ba494f9b14a710b2bcccce792856fb8fcfb3d"},
		{seq(4096 * 130), "59de730bf6c67a941f3b2ffa2f920acfaa1713695ad5deea12b4a121e5f23fa1"},
	} {
		if got := hex.EncodeToString(Bzzr1Hash(c.data)); got != c.want {
			t.Errorf("bzzr1 of %d bytes: %s, want %s", len(c.data), got, c.want)
		}
	}
}
