// Checks a personal_sign / eth_sign signature with ethers v6, as a dapp
// would: verifyMessage must recover the signer, and when the key is given,
// ethers' own Wallet.signMessage must produce the same bytes (both sign
// deterministically, RFC 6979).
//
//   EMBER_MESSAGE=0x<message bytes> EMBER_SIGNATURE=0x<65 bytes> \
//   EMBER_ADDRESS=0x<signer> [EMBER_KEY=0x<private key>] node verify-message.mjs
import assert from "node:assert/strict";
import { Wallet, getAddress, getBytes, hashMessage, verifyMessage } from "ethers";
import { env, run, step } from "./lib.mjs";

const message = getBytes(env("EMBER_MESSAGE"));
const signature = env("EMBER_SIGNATURE");
const address = getAddress(env("EMBER_ADDRESS"));
const key = process.env.EMBER_KEY || "";

await run("verify-message", async () => {
  await step("verifyMessage recovers the signer", async () => {
    assert.equal(verifyMessage(message, signature), address);
    console.log(`hashMessage ${hashMessage(message)}`);
  });
  if (key) {
    await step("Wallet.signMessage gives the same signature", async () => {
      assert.equal(await new Wallet(key).signMessage(message), signature);
    });
  }
});
