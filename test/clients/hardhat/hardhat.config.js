// A Hardhat 2 project run twice by test/e2e/hardhat_test.go: on Hardhat's
// own network and with --network ember on an `emberd dev` chain
// (EMBER_RPC_URL), with the same tests and the same pass list.
require("@nomicfoundation/hardhat-ethers");
const { extendProvider } = require("hardhat/config");

// hardhat-network-helpers 1.x serves only nodes whose web3_clientVersion
// starts with "hardhatnetwork", "anvil" or "zksync", and Ember's is
// "emberd/…". A dapp project pointing its helpers at an Ember dev chain
// declares it a development network here; every other call goes to the
// node unchanged.
extendProvider(async (provider, config, network) => {
  if (network !== "ember") return provider;
  const request = provider.request.bind(provider);
  provider.request = async (args) => {
    if (args.method === "web3_clientVersion") return "anvil/" + (await request(args));
    return request(args);
  };
  return provider;
});

module.exports = {
  // No contract to compile: the tests deploy the repository's artifacts
  // (contracts/artifacts, built with the pinned solc-js).
  solidity: "0.8.28",
  networks: {
    hardhat: { chainId: 31337 },
    ember: {
      url: process.env.EMBER_RPC_URL || "http://127.0.0.1:8545",
      chainId: 31337,
      // "remote" (Hardhat's default for a URL, as for anvil): the node's
      // unlocked accounts sign (emberd dev's prefunded keys) and
      // impersonated ones need none.
      accounts: "remote",
      timeout: 60000,
    },
  },
  // MOCHA_REPORTER=json: the pass list test/e2e/hardhat_test.go compares
  mocha: { timeout: 120000, reporter: process.env.MOCHA_REPORTER || "spec" },
};
