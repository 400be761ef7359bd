// A Hardhat 2 project as `npx hardhat init` makes it (hardhat-toolbox),
// run by test/e2e/hardhat_test.go on Hardhat's own network and with
// --network ember on an `emberd dev` chain (EMBER_RPC_URL): the same tests,
// the same pass list, and nothing Ember-specific here but the network's URL.
require("@nomicfoundation/hardhat-toolbox");
const { subtask } = require("hardhat/config");
const { TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD } = require("hardhat/builtin-tasks/task-names");

// Compile with the solc-js Hardhat itself depends on (0.8.26), so the tests
// need no compiler download (Hardhat's documented offline setup); a
// project online leaves this out.
subtask(TASK_COMPILE_SOLIDITY_GET_SOLC_BUILD, async (args, hre, runSuper) => {
  if (args.solcVersion !== "0.8.26") return runSuper();
  return {
    compilerPath: require.resolve("solc/soljson.js"),
    isSolcJs: true,
    version: args.solcVersion,
    longVersion: require("solc").version().replace(".Emscripten.clang", ""),
  };
});

module.exports = {
  solidity: { version: "0.8.26", settings: { evmVersion: "cancun" } },
  networks: {
    hardhat: { chainId: 31337 },
    ember: {
      url: process.env.EMBER_RPC_URL || "http://127.0.0.1:8545",
      // "remote" (Hardhat's default for a URL, as for anvil): the node's
      // unlocked accounts sign (emberd dev's prefunded keys) and
      // impersonated ones need none.
      accounts: "remote",
    },
  },
  gasReporter: { enabled: false },
  // MOCHA_REPORTER=json: the pass list test/e2e/hardhat_test.go compares
  mocha: { timeout: 120000, reporter: process.env.MOCHA_REPORTER || "spec" },
};
