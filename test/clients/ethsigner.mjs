// The ethsecp256k1 signer Ethermint chains plug into cosmjs (as Evmos dapps
// do), for the scripts that sign native txs with cosmjs's stock clients:
// SIGN_MODE_DIRECT over keccak256(SignDoc), a 64-byte r||s signature, the
// key packed as /ethermint.crypto.v1.ethsecp256k1.PubKey.
import assert from "node:assert/strict";
import { makeSignBytes } from "@cosmjs/proto-signing";
import { Secp256k1, keccak256 } from "@cosmjs/crypto";
import { fromHex, toBase64, toBech32, toHex } from "@cosmjs/encoding";
import { BinaryReader } from "cosmjs-types/binary.js";
import { BaseAccount } from "cosmjs-types/cosmos/auth/v1beta1/auth.js";
import { PubKey } from "cosmjs-types/cosmos/crypto/secp256k1/keys.js";
import { AuthInfo } from "cosmjs-types/cosmos/tx/v1beta1/tx.js";

const PREFIX = "ember";
const ETH_ACCOUNT = "/ethermint.types.v1.EthAccount";
const ETH_PUBKEY = "/ethermint.crypto.v1.ethsecp256k1.PubKey";

// EthSecp256k1Signer is a cosmjs OfflineDirectSigner for Ethermint keys.
// cosmjs packs every secp256k1 key as /cosmos.crypto.secp256k1.PubKey; the
// signer re-packs it under Ethermint's type (same 33 bytes) in the AuthInfo
// it signs, and cosmjs broadcasts the signed AuthInfo it returns.
export class EthSecp256k1Signer {
  static async fromKey(hexKey) {
    const priv = fromHex(hexKey.replace(/^0x/, ""));
    const { pubkey } = await Secp256k1.makeKeypair(priv);
    const s = new EthSecp256k1Signer();
    s.priv = priv;
    s.pubkey = Secp256k1.compressPubkey(pubkey);
    s.ethAddress = "0x" + toHex(keccak256(pubkey.slice(1)).slice(-20));
    s.address = toBech32(PREFIX, fromHex(s.ethAddress.slice(2)));
    return s;
  }
  async getAccounts() {
    return [{ address: this.address, algo: "secp256k1", pubkey: this.pubkey }];
  }
  async signDirect(signerAddress, signDoc) {
    assert.equal(signerAddress, this.address);
    const authInfo = AuthInfo.decode(signDoc.authInfoBytes);
    for (const si of authInfo.signerInfos) {
      si.publicKey = { typeUrl: ETH_PUBKEY, value: PubKey.encode({ key: this.pubkey }).finish() };
    }
    const signed = { ...signDoc, authInfoBytes: AuthInfo.encode(authInfo).finish() };
    return { signed, signature: { pub_key: { type: "tendermint/PubKeySecp256k1", value: toBase64(this.pubkey) }, signature: toBase64(await this.sign(signed)) } };
  }
  // sign is r||s over keccak256(SignDoc bytes).
  async sign(signDoc) {
    const sig = await Secp256k1.createSignature(keccak256(makeSignBytes(signDoc)), this.priv);
    return new Uint8Array([...sig.r(32), ...sig.s(32)]);
  }
}

// ethAccountParser decodes /ethermint.types.v1.EthAccount
// ({BaseAccount base_account = 1; string code_hash = 2}) for cosmjs, which
// knows only the SDK's account types.
export function ethAccountParser(any) {
  assert.equal(any.typeUrl, ETH_ACCOUNT);
  const r = new BinaryReader(any.value);
  let base;
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag >>> 3 === 1) base = BaseAccount.decode(r, r.uint32());
    else r.skipType(tag & 7);
  }
  let pubkey = null;
  if (base.pubKey) {
    assert.equal(base.pubKey.typeUrl, ETH_PUBKEY);
    pubkey = { type: "ethermint/PubKeyEthSecp256k1", value: toBase64(PubKey.decode(base.pubKey.value).key) };
  }
  return { address: base.address, pubkey, accountNumber: Number(base.accountNumber), sequence: Number(base.sequence) };
}
