// A dapp's tests as hardhat-toolbox users write them (network helpers,
// hardhat-chai-matchers): the same file passes on Hardhat's network and on
// an emberd dev chain (--network ember), with nothing configured for it.
const { expect } = require("chai");
const { ethers } = require("hardhat");
const {
  loadFixture, time, mine, impersonateAccount, stopImpersonatingAccount, setBalance, setCode, setStorageAt,
  setNonce, setNextBlockBaseFeePerGas, setCoinbase, dropTransaction, takeSnapshot,
} = require("@nomicfoundation/hardhat-network-helpers");
const tokenArtifact = require("../../../../contracts/artifacts/EmberToken.json");

const SUPPLY = 1_000_000n;
const DAY = 24 * 60 * 60;
const ONE = ethers.parseEther("1");

async function deploy() {
  const [owner, alice, bob] = await ethers.getSigners();
  const token = await new ethers.ContractFactory(tokenArtifact.abi, tokenArtifact.bytecode, owner).deploy(SUPPLY);
  const unlockTime = (await time.latest()) + DAY;
  const vault = await ethers.deployContract("Vault", [unlockTime], { value: ONE });
  await Promise.all([token.waitForDeployment(), vault.waitForDeployment()]);
  return { token, vault, unlockTime, owner, alice, bob };
}

describe("fixtures and matchers", function () {
  it("loadFixture hands each test a fresh copy (1): changeTokenBalances", async function () {
    const { token, owner, alice } = await loadFixture(deploy);
    await expect(token.transfer(alice.address, 100n)).to.changeTokenBalances(token, [owner, alice], [-100n, 100n]);
    expect(await token.balanceOf(alice.address)).to.equal(100n);
  });

  it("loadFixture hands each test a fresh copy (2): changeTokenBalance", async function () {
    const { token, alice, bob } = await loadFixture(deploy);
    expect(await token.balanceOf(alice.address)).to.equal(0n);
    await token.transfer(alice.address, 7n);
    await expect(token.connect(alice).transfer(bob.address, 3n)).to.changeTokenBalance(token, bob, 3n);
  });

  it(".to.emit with args, on a send answered once mined", async function () {
    const { vault, token, owner, alice } = await loadFixture(deploy);
    await expect(vault.connect(alice).deposit({ value: 5n })).to.emit(vault, "Deposited").withArgs(alice.address, 5n);
    await expect(token.transfer(alice.address, 9n)).to.emit(token, "Transfer").withArgs(owner.address, alice.address, 9n);
  });

  it(".to.be.revertedWith and .to.be.reverted", async function () {
    const { vault } = await loadFixture(deploy);
    await expect(vault.deposit({ value: 0n })).to.be.revertedWith("Vault: nothing deposited");
    await expect(vault.deposit({ value: 0n })).to.be.reverted;
    await expect(vault.deposit({ value: 1n })).not.to.be.reverted;
  });

  it(".to.be.revertedWithCustomError with args", async function () {
    const { vault, token, alice, unlockTime } = await loadFixture(deploy);
    await expect(vault.connect(alice).withdraw()).to.be.revertedWithCustomError(vault, "NotOwner").withArgs(alice.address);
    await expect(vault.withdraw()).to.be.revertedWithCustomError(vault, "TooEarly");
    await expect(token.connect(alice).transfer(alice.address, 1n))
      .to.be.revertedWithCustomError(token, "ERC20InsufficientBalance").withArgs(alice.address, 0n, 1n);
    expect(await vault.unlockTime()).to.equal(unlockTime);
  });

  it("changeEtherBalances (fees excluded) and changeEtherBalance", async function () {
    const { vault, owner, alice } = await loadFixture(deploy);
    await expect(vault.connect(alice).deposit({ value: 1000n })).to.changeEtherBalances([alice, vault], [-1000n, 1000n]);
    await expect(owner.sendTransaction({ to: alice.address, value: 200n })).to.changeEtherBalance(alice, 200n);
  });
});

describe("time and blocks", function () {
  it("time.increase moves the next block's time by exactly that much", async function () {
    const before = await time.latest();
    await time.increase(3600);
    expect(await time.latest()).to.equal(before + 3600);
  });

  it("time.increaseTo unlocks the vault: revert before, emit and balances after", async function () {
    const { vault, owner, unlockTime } = await loadFixture(deploy);
    await expect(vault.withdraw()).to.be.revertedWithCustomError(vault, "TooEarly");
    await time.increaseTo(unlockTime);
    expect(await time.latest()).to.equal(unlockTime);
    const tx = vault.withdraw();
    await expect(tx).to.emit(vault, "Withdrawn").withArgs(owner.address, ONE);
    await expect(tx).to.changeEtherBalances([owner, vault], [ONE, -ONE]);
  });

  it("mine makes exactly that many blocks, with the interval asked", async function () {
    const block = await time.latestBlock();
    const t = await time.latest();
    await mine(10);
    expect(await time.latestBlock()).to.equal(block + 10);
    const t10 = await time.latest();
    await mine(5, { interval: 60 });
    expect(await time.latestBlock()).to.equal(block + 15);
    // Hardhat spaces the blocks by the interval after the first, anvil
    // adds it to each: at least four intervals either way.
    expect((await time.latest()) - t10 >= 4 * 60).to.equal(true);
    expect(t10 >= t).to.equal(true);
  });

  it("takeSnapshot().restore() brings the chain back", async function () {
    const { token, alice } = await loadFixture(deploy);
    const snapshot = await takeSnapshot();
    const block = await time.latestBlock();
    await token.transfer(alice.address, 55n);
    await mine(3);
    expect(await token.balanceOf(alice.address)).to.equal(55n);
    await snapshot.restore();
    expect(await time.latestBlock()).to.equal(block);
    expect(await token.balanceOf(alice.address)).to.equal(0n);
  });
});

describe("accounts and state", function () {
  it("impersonateAccount + setBalance: a keyless account sends; stopImpersonatingAccount ends it", async function () {
    const whale = "0x000000000000000000000000000000000000dEaD";
    const to = ethers.Wallet.createRandom().address;
    await setBalance(whale, ethers.parseEther("5"));
    expect(await ethers.provider.getBalance(whale)).to.equal(ethers.parseEther("5"));
    await impersonateAccount(whale);
    const signer = await ethers.getSigner(whale);
    await expect(signer.sendTransaction({ to, value: ONE })).to.changeEtherBalance(to, ONE);
    const receipt = await ethers.provider.getTransactionReceipt((await signer.sendTransaction({ to, value: 1n })).hash);
    expect(receipt.from).to.equal(whale);
    await stopImpersonatingAccount(whale);
    let refused = false;
    try {
      await signer.sendTransaction({ to, value: 1n });
    } catch {
      refused = true;
    }
    expect(refused).to.equal(true);
  });

  it("setCode, setStorageAt and setNonce edit an account", async function () {
    const { token } = await loadFixture(deploy);
    const addr = ethers.Wallet.createRandom().address;
    // TIMESTAMP PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns block.timestamp
    await setCode(addr, "0x4260005260206000f3");
    expect(await ethers.provider.getCode(addr)).to.equal("0x4260005260206000f3");
    expect(BigInt(await ethers.provider.call({ to: addr })) > 0n).to.equal(true);
    await setStorageAt(await token.getAddress(), 2, 123456789n); // ERC-20 total supply
    expect(await token.totalSupply()).to.equal(123456789n);
    await setNonce(addr, 42);
    expect(await ethers.provider.getTransactionCount(addr)).to.equal(42);
  });

  it("setNextBlockBaseFeePerGas and setCoinbase shape the next block", async function () {
    const [owner] = await ethers.getSigners();
    const coinbase = ethers.Wallet.createRandom().address;
    await setCoinbase(coinbase);
    await setNextBlockBaseFeePerGas(2_000_000_000n);
    const receipt = await (await owner.sendTransaction({ to: coinbase, value: 1n })).wait();
    const block = await ethers.provider.getBlock(receipt.blockNumber);
    expect(block.baseFeePerGas).to.equal(2_000_000_000n);
    expect(block.miner).to.equal(coinbase);
  });

  it("with automine off a send waits in the pool; dropTransaction removes it", async function () {
    const [owner] = await ethers.getSigners();
    await ethers.provider.send("evm_setAutomine", [false]);
    try {
      const tx = await owner.sendTransaction({ to: owner.address, value: 1n });
      expect(await ethers.provider.getTransactionReceipt(tx.hash)).to.equal(null);
      await dropTransaction(tx.hash);
      await mine();
      expect(await ethers.provider.getTransaction(tx.hash)).to.equal(null);
      const kept = await owner.sendTransaction({ to: owner.address, value: 2n });
      await mine();
      expect((await ethers.provider.getTransactionReceipt(kept.hash)).status).to.equal(1);
    } finally {
      await ethers.provider.send("evm_setAutomine", [true]);
    }
  });
});
