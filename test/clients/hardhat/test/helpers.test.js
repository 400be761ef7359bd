// Dapp-style tests over hardhat-network-helpers: the same file passes on
// Hardhat's network and on an emberd dev chain (--network ember).
const { expect } = require("chai");
const { ethers } = require("hardhat");
const helpers = require("@nomicfoundation/hardhat-network-helpers");
const { loadFixture, time, mine, impersonateAccount, setBalance, setCode, setStorageAt, takeSnapshot } = helpers;
const artifact = require("../../../../contracts/artifacts/EmberToken.json");

const SUPPLY = 1_000_000n;

async function deployToken() {
  const [owner, alice] = await ethers.getSigners();
  const factory = new ethers.ContractFactory(artifact.abi, artifact.bytecode, owner);
  const token = await factory.deploy(SUPPLY);
  await token.waitForDeployment();
  return { token, owner, alice };
}

describe("hardhat-network-helpers", function () {
  it("loadFixture deploys once and hands a fresh copy to each test (1)", async function () {
    const { token, owner, alice } = await loadFixture(deployToken);
    await (await token.transfer(alice.address, 100n)).wait();
    expect(await token.balanceOf(alice.address)).to.equal(100n);
    expect(await token.balanceOf(owner.address)).to.equal(SUPPLY - 100n);
  });

  it("loadFixture deploys once and hands a fresh copy to each test (2)", async function () {
    const { token, alice } = await loadFixture(deployToken);
    expect(await token.balanceOf(alice.address)).to.equal(0n);
    await (await token.transfer(alice.address, 7n)).wait();
    expect(await token.balanceOf(alice.address)).to.equal(7n);
  });

  it("time.increase moves the next block's time by exactly that much", async function () {
    const before = await time.latest();
    await time.increase(3600);
    expect(await time.latest()).to.equal(before + 3600);
  });

  it("time.increaseTo sets the next block's time", async function () {
    const target = (await time.latest()) + 86400;
    await time.increaseTo(target);
    expect(await time.latest()).to.equal(target);
  });

  it("mine makes exactly that many blocks", async function () {
    const before = await time.latestBlock();
    await mine(10);
    expect(await time.latestBlock()).to.equal(before + 10);
  });

  it("impersonateAccount + setBalance: a keyless account sends", async function () {
    const whale = "0x000000000000000000000000000000000000dEaD";
    const to = ethers.Wallet.createRandom().address;
    await setBalance(whale, ethers.parseEther("5"));
    expect(await ethers.provider.getBalance(whale)).to.equal(ethers.parseEther("5"));
    await impersonateAccount(whale);
    const signer = await ethers.getSigner(whale);
    const tx = await signer.sendTransaction({ to, value: ethers.parseEther("1") });
    const receipt = await tx.wait();
    expect(receipt.from).to.equal(whale);
    expect(await ethers.provider.getBalance(to)).to.equal(ethers.parseEther("1"));
  });

  it("setCode installs code that runs", async function () {
    const addr = ethers.Wallet.createRandom().address;
    // TIMESTAMP PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns block.timestamp
    await setCode(addr, "0x4260005260206000f3");
    expect(await ethers.provider.getCode(addr)).to.equal("0x4260005260206000f3");
    const out = await ethers.provider.call({ to: addr });
    expect(BigInt(out) > 0n).to.equal(true);
  });

  it("setStorageAt writes a contract's slot (ERC-20 total supply, slot 2)", async function () {
    const { token } = await loadFixture(deployToken);
    await setStorageAt(await token.getAddress(), 2, 123456789n);
    expect(await token.totalSupply()).to.equal(123456789n);
  });

  it("takeSnapshot / restore brings the chain back", async function () {
    const { token, alice } = await loadFixture(deployToken);
    const snapshot = await takeSnapshot();
    const block = await time.latestBlock();
    await (await token.transfer(alice.address, 55n)).wait();
    await mine(3);
    expect(await token.balanceOf(alice.address)).to.equal(55n);
    await snapshot.restore();
    expect(await time.latestBlock()).to.equal(block);
    expect(await token.balanceOf(alice.address)).to.equal(0n);
  });
});
