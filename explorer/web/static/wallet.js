// Wallets: connect an injected EIP-1193 wallet (eth_requestAccounts, the
// account the contract write forms send from), and add this chain to
// MetaMask (EIP-3085 wallet_addEthereumChain) or Keplr
// (experimentalSuggestChain: BIP-44 coin type 60 and Ethermint's key
// features, so Keplr derives from a mnemonic the same ember1… address as
// the node's keyring and signs with Ethereum's secp256k1 scheme).
import { api, rpc, h, short, COIN } from "./lib.js";

let account = null;
const listeners = [];

// onConnect calls f with the account each time the wallet connects.
export const onConnect = (f) => { listeners.push(f); };

// connected is the account connected so far, or null.
export const connected = () => account;

// connectWallet asks the wallet for its accounts and returns the first.
export async function connectWallet() {
  if (!window.ethereum) throw new Error("no wallet: install or enable an EIP-1193 wallet (MetaMask, Keplr, …)");
  const accounts = await window.ethereum.request({ method: "eth_requestAccounts" });
  if (!accounts || !accounts.length) throw new Error("the wallet gave no account");
  account = accounts[0];
  for (const f of listeners) f(account);
  return account;
}

// chainFacts is what both wallets are told: the EVM chain id (the node's),
// the Cosmos side's facts and the JSON-RPC URL (/config/chain).
async function chainFacts() {
  const [chainId, c] = await Promise.all([rpc("eth_chainId", []), api("/config/chain")]);
  const name = "Ember" + (c.cosmos_chain_id ? " (" + c.cosmos_chain_id + ")" : " " + BigInt(chainId));
  return Object.assign({ evmChainId: "0x" + BigInt(chainId).toString(16), name }, c);
}

// metaMaskChain is wallet_addEthereumChain's parameter (EIP-3085).
export async function metaMaskChain() {
  const f = await chainFacts();
  if (!f.json_rpc_url) throw new Error("the explorer does not know the chain's JSON-RPC URL");
  return {
    chainId: f.evmChainId, chainName: f.name, rpcUrls: [f.json_rpc_url],
    nativeCurrency: { name: "Ember", symbol: COIN, decimals: 18 },
    blockExplorerUrls: [location.origin],
  };
}

// keplrChain is Keplr's ChainInfo for experimentalSuggestChain.
export async function keplrChain() {
  const f = await chainFacts();
  if (!f.cosmos_chain_id || !f.cometbft_rpc_url || !f.rest_url || !f.denom) throw new Error("the explorer does not know the chain's Cosmos chain id, CometBFT RPC and REST URLs");
  const p = f.bech32_prefix, currency = { coinDenom: COIN, coinMinimalDenom: f.denom, coinDecimals: 18 };
  return {
    chainId: f.cosmos_chain_id, chainName: f.name, rpc: f.cometbft_rpc_url, rest: f.rest_url,
    bip44: { coinType: 60 },
    bech32Config: {
      bech32PrefixAccAddr: p, bech32PrefixAccPub: p + "pub",
      bech32PrefixValAddr: p + "valoper", bech32PrefixValPub: p + "valoperpub",
      bech32PrefixConsAddr: p + "valcons", bech32PrefixConsPub: p + "valconspub",
    },
    currencies: [currency], feeCurrencies: [currency], stakeCurrency: currency,
    features: ["eth-address-gen", "eth-key-sign"],
  };
}

// connectButton is the header's button: "Connect wallet", then the account.
export function connectButton() {
  const b = h("button", { type: "button", id: "connect-wallet", "aria-label": "Connect wallet" }, "Connect wallet");
  const show = (a) => { b.textContent = short(a); b.title = a; b.dataset.account = a; b.setAttribute("aria-label", "Connected: " + a); };
  listeners.push(show);
  b.addEventListener("click", async () => {
    try { await connectWallet(); } catch (e) { b.title = e.message; walletStatus(e.message, true); }
  });
  return b;
}

const status = h("span", { id: "wallet-status", role: "status", "aria-live": "polite" });
function walletStatus(text, bad) { status.textContent = text; status.className = bad ? "error" : "ok"; }

// addNetworkButtons add this chain to MetaMask and to Keplr (the footer's).
export function addNetworkButtons() {
  const add = async (which) => {
    try {
      if (which === "MetaMask") {
        if (!window.ethereum) throw new Error("no EIP-1193 wallet (MetaMask) in this browser");
        await window.ethereum.request({ method: "wallet_addEthereumChain", params: [await metaMaskChain()] });
      } else {
        if (!window.keplr) throw new Error("Keplr is not installed in this browser");
        const c = await keplrChain();
        await window.keplr.experimentalSuggestChain(c);
        await window.keplr.enable(c.chainId);
      }
      walletStatus("Added to " + which + ".", false);
    } catch (e) { walletStatus(which + ": " + (e.message || e), true); }
  };
  return h("span", { class: "wallet-add" },
    h("button", { type: "button", id: "add-metamask", onclick: () => add("MetaMask") }, "Add to MetaMask"), " ",
    h("button", { type: "button", id: "add-keplr", onclick: () => add("Keplr") }, "Add to Keplr"), " ", status);
}
