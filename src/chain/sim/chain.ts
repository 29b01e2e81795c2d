/**
 * The simulated chain's generator: a seeded state machine that emits one raw
 * block per call, in Litecoin Core's serialization, and reports the ground
 * truth of every peg as it happens. State is only what is still "in flight"
 * (coins inside MWEB, funding transactions not yet scanned), so memory stays
 * flat however long the chain grows.
 */
import { decodeScript } from '../../domain/address.js';
import { NETWORKS } from '../../domain/network.js';
import { Rng, mix32, mixBytes } from './random.js';
import {
  PEGIN_KERNEL_FEE, PEGOUT_KERNEL_BASE_FEE, TRANSFER_KERNEL_FEE, type SimRates,
} from './presets.js';
import {
  Writer, copy, displayHex, kernelBytes, resetArena, scratch, merkleRoot, serializeHeader, serializeHogEx, serializeMwebBlock,
  serializeMwebHeader, serializeTx, sha256, sha256d, type Kernel, type SerializedTx, type TxIn, type TxOut,
} from './serialize.js';
import type { AmountKind, DestinationKind, SimLabel, TruthSink } from './truth.js';

export const SIM_MWEB_ACTIVATION_HEIGHT = 432;
/** 2022-01-01T00:00:00Z: a fixed genesis time keeps runs identical. */
const GENESIS_TIME = 1_640_995_200;
const COIN = 100_000_000;
const SUBSIDY = 6.25 * COIN;
/**
 * Funding and HogEx transactions stay retrievable this many blocks after the
 * block that spends them: more than the source's window, so a scanner can
 * still resolve any block it can fetch.
 */
const RETAIN_BLOCKS = 50_000;
/** Peg-out outputs can be spent after this many confirmations (multi-hop peg-ins wait for it). */
const HOGEX_MATURITY = 6;
/** Exits below this amount are not worth a peg-out (the coins stay in MWEB). */
const MIN_PEGOUT = 100_000;
const ROUND_AMOUNTS = [0.01, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20, 25, 50, 100, 250, 500, 1000].map((c) => Math.round(c * COIN));
/** Popularity of each round amount (1 and 0.5 coin lead, big amounts are rare). */
const ROUND_WEIGHTS = [3, 4, 9, 4, 5, 12, 16, 7, 3, 9, 8, 3, 3, 2, 2, 0.5, 0.3, 0.2];
const SERVICE_USERS = 2;
const POOLS = ['/SimPool Alpha/', '/SimPool Beta/', '/SimPool Gamma/'];
const RECENT_USERS = 4_096;

type AddrType = 'p2wpkh' | 'p2pkh' | 'p2sh';
/** vbytes an input of each type adds to a transaction (for the canonical fee). */
const INPUT_VSIZE: Record<AddrType, number> = { p2wpkh: 68, p2pkh: 148, p2sh: 91 };
/** Everything of a one-input peg-in but the input (163 vB at one P2WPKH input, as on regtest). */
const PEGIN_BASE_VSIZE = 95;

interface Addr { type: AddrType; hash: Uint8Array; script: Uint8Array }

const SCRIPT_TEMPLATES: Record<AddrType, { prefix: number[]; suffix: number[] }> = {
  p2wpkh: { prefix: [0x00, 0x14], suffix: [] },
  p2pkh: { prefix: [0x76, 0xa9, 0x14], suffix: [0x88, 0xac] },
  p2sh: { prefix: [0xa9, 0x14], suffix: [0x87] },
};

function makeAddr(type: AddrType, hash: Uint8Array): Addr {
  const { prefix, suffix } = SCRIPT_TEMPLATES[type];
  const script = new Uint8Array(prefix.length + 20 + suffix.length);
  script.set(prefix, 0);
  script.set(hash, prefix.length);
  script.set(suffix, prefix.length + 20);
  return { type, hash, script };
}

/** The HogEx output 0 is spent by the next HogEx, never resolved to an address. */
const HOGEX_OWNER = makeAddr('p2wpkh', new Uint8Array(20));
const EMPTY = new Uint8Array(0);
const WITNESS_COMMITMENT_PREFIX = new Uint8Array([0x6a, 0x24, 0xaa, 0x21, 0xa9, 0xed]);

export const addressOf = (script: Uint8Array): string => decodeScript(script, NETWORKS.sim).address ?? '';

interface Outpoint { txidBytes: Uint8Array; vout: number; value: number; addr: Addr }

interface HopChain { id: number; cycles: number; cycle: number; fundedBy: string | null }

interface Episode {
  user: number;
  inputs: Outpoint[];
  amount: number;
  kind: AmountKind;
  canonicalFee: number;
  mergeInto: number | null;
  chain: HopChain | null;
}

interface Wallet {
  id: number;
  user: number;
  balance: number;
  sources: string[];
  firstHeight: number;
  /** Still exactly the coins of one peg-in: its full exit is a round trip. */
  pure: boolean;
  mergeable: boolean;
  chain: HopChain | null;
  pegin: string;
  peginAmount: number;
  slot: number;
  /** Exit events still scheduled; a wallet with none left is forgotten (its coins stay in the supply). */
  exitsLeft: number;
}

type Event =
  | { kind: 'pegin'; height: number; seq: number; episode: Episode }
  | { kind: 'exit'; height: number; seq: number; wallet: number; final: boolean }
  | { kind: 'transfer'; height: number; seq: number; wallet: number };

interface PendingPegout {
  out: TxOut;
  wallet: Wallet;
  final: boolean;
  partial: boolean;
  dest: DestinationKind;
  nextUser: number | null;
  fee: number;
  feeRate: number;
  extraHops: number;
  sources: string[];
  roundTrip: boolean;
}

export interface GeneratedBlock {
  height: number;
  hash: string;
  /** null when generated only to move forward (fast-forward). */
  raw: Uint8Array | null;
}

/** A min-heap of events by (height, seq): seq keeps equal heights in creation order. */
class EventQueue {
  private items: Event[] = [];
  get size(): number { return this.items.length; }
  push(e: Event): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!before(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }
  popDue(height: number): Event | undefined {
    const a = this.items;
    if (a.length === 0 || a[0]!.height > height) return undefined;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < a.length && before(a[l]!, a[m]!)) m = l;
        if (r < a.length && before(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }
}
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;
const before = (x: Event, y: Event): boolean => x.height < y.height || (x.height === y.height && x.seq < y.seq);

function userAddr(seed: number, user: number, k: number): Addr {
  const t = mix32(seed, 7, user, k) % 100;
  return makeAddr(t < 85 ? 'p2wpkh' : t < 93 ? 'p2pkh' : 'p2sh', mixBytes(20, seed, 1, user, k));
}

function exchangeAddr(seed: number, e: number, k: number): Addr {
  return makeAddr(k % 3 === 2 ? 'p2sh' : 'p2wpkh', mixBytes(20, seed, 2, e, k));
}

/**
 * The labels of a simulated chain: exchange deposit addresses and SimPay's hot
 * wallet. A function of the rates and the seed alone (no block needs to be
 * generated), so the source can write them before the first scan.
 */
export function simLabels(rates: SimRates, seed: number): SimLabel[] {
  const labels: SimLabel[] = [];
  for (let e = 0; e < rates.exchanges; e++) {
    for (let k = 0; k < rates.depositAddressesPerExchange; k++) {
      labels.push({ address: addressOf(exchangeAddr(seed, e, k).script), entity: `SimExchange ${String.fromCharCode(65 + e)}`, category: 'exchange', confidence: 1 });
    }
  }
  for (let u = 0; u < SERVICE_USERS; u++) {
    labels.push({ address: addressOf(userAddr(seed, u, 0).script), entity: 'SimPay', category: 'service', confidence: 0.9 });
  }
  return labels;
}

export class SimChain {
  readonly tip: number;
  height = -1;
  private readonly rng: Rng;
  private prevHash: Uint8Array = new Uint8Array(32);
  private time = GENESIS_TIME;
  private supply = 0;
  private numTxos = 0;
  private prevHogex: Outpoint | null = null;
  private readonly events = new EventQueue();
  private seq = 0;
  private readonly wallets = new Map<number, Wallet>();
  private readonly live: Wallet[] = [];
  private readonly recentUsers: number[] = [];
  private readonly retained = new Map<string, { raw: Uint8Array; until: number }>();
  private readonly poolScripts: Uint8Array[];
  private readonly poolTags: Uint8Array[];
  private nextUser = SERVICE_USERS;
  private nextWallet = 0;
  private nextFresh = 0;
  private nextChain = 0;
  private activity = 1;
  private feeLevel = 1;

  constructor(readonly rates: SimRates, readonly seed: number, private readonly truth: TruthSink) {
    this.rng = new Rng(seed);
    this.tip = SIM_MWEB_ACTIVATION_HEIGHT - 1 + rates.blocks;
    // Pools are paid at bech32 addresses: every block's coinbase address is decoded by the scanner, base58 costs more.
    this.poolScripts = POOLS.map((_, i) => makeAddr('p2wpkh', mixBytes(20, seed, 4, i)).script);
    this.poolTags = POOLS.map((tag) => new Uint8Array(Buffer.from(tag, 'ascii')));
  }

  /** A funding or multi-hop HogEx transaction the scanner may still ask for. */
  rawTransaction(txid: string): Uint8Array | undefined {
    return this.retained.get(txid)?.raw;
  }

  /** Called for every transaction the scanner may ask for (the worker forwards them to the source). */
  onRetain: ((txid: string, raw: Uint8Array, until: number) => void) | null = null;

  private retain(tx: SerializedTx, until: number): void {
    if (this.onRetain) {
      // The worker's source keeps them on its side: no second copy here.
      this.onRetain(tx.txid, copy(tx.raw), until);
      return;
    }
    const prev = this.retained.get(tx.txid);
    this.retained.set(tx.txid, { raw: prev?.raw ?? copy(tx.raw), until: Math.max(prev?.until ?? 0, until) });
  }

  get inFlight(): { wallets: number; events: number; retainedTxs: number } {
    return { wallets: this.wallets.size, events: this.events.size, retainedTxs: this.retained.size };
  }

  /** Generates the next block; `materialize` false skips the bytes nobody will read (fast-forward). */
  next(materialize = true): GeneratedBlock {
    const height = ++this.height;
    if (height > this.tip) throw new Error(`the simulated chain ends at height ${this.tip}`);
    resetArena();
    this.time += Math.max(1, Math.round(this.rng.exponential(this.rates.blockSeconds)));
    if (height % 2_000 === 0) this.drift();
    const block = height < SIM_MWEB_ACTIVATION_HEIGHT ? this.preMwebBlock(height, materialize) : this.mwebBlock(height, materialize);
    if (height % 1_000 === 0) this.evict(height);
    return block;
  }

  /** Activity and fee levels wander slowly (mean-reverting in log space), like busy and quiet periods. */
  private drift(): void {
    const v = this.rates.activityVolatility;
    this.activity = Math.exp(0.7 * Math.log(this.activity) + v * this.rng.normal());
    this.feeLevel = Math.exp(0.7 * Math.log(this.feeLevel) + 0.4 * this.rng.normal());
  }

  private evict(height: number): void {
    for (const [txid, entry] of this.retained) if (entry.until < height) this.retained.delete(txid);
  }

  // --- addresses -----------------------------------------------------------

  private freshAddr(): Addr {
    const n = this.nextFresh++;
    const t = mix32(this.seed, 9, n) % 100;
    return makeAddr(t < 80 ? 'p2wpkh' : t < 90 ? 'p2pkh' : 'p2sh', mixBytes(20, this.seed, 3, n));
  }

  // --- blocks ----------------------------------------------------------------

  private preMwebBlock(height: number, materialize: boolean): GeneratedBlock {
    const funding: SerializedTx[] = [];
    // The first HogEx needs an input: three users peg in at activation, as on regtest.
    if (height === SIM_MWEB_ACTIVATION_HEIGHT - 3) {
      for (let i = 0; i < 3; i++) funding.push(...this.startEpisode(height, SIM_MWEB_ACTIVATION_HEIGHT));
    }
    return this.assemble(height, funding, null, materialize, 0);
  }

  private mwebBlock(height: number, materialize: boolean): GeneratedBlock {
    const funding: SerializedTx[] = [];
    const arrivals = this.rng.poisson(this.rates.peginsPerBlock * this.activity);
    for (let i = 0; i < arrivals; i++) funding.push(...this.startEpisode(height, null));

    const pegins: SerializedTx[] = [];
    const hogexInputs: Outpoint[] = this.prevHogex ? [this.prevHogex] : [];
    const kernels: Kernel[] = [];
    const pegouts: PendingPegout[] = [];
    let canonicalFees = 0;
    for (let e = this.events.popDue(height); e; e = this.events.popDue(height)) {
      if (e.kind === 'pegin') {
        const tx = this.pegin(height, e.episode, kernels);
        pegins.push(tx);
        canonicalFees += e.episode.canonicalFee;
        hogexInputs.push({ txidBytes: tx.txidBytes, vout: 0, value: e.episode.amount, addr: e.episode.inputs[0]!.addr });
      } else if (e.kind === 'exit') {
        const p = this.exit(e.wallet, e.final, kernels);
        if (p) pegouts.push(p);
      } else {
        this.transfer(e.wallet, kernels);
      }
    }

    // HogEx: previous HogEx output 0, then this block's peg-ins; vout[0] the supply, then peg-outs in no visible order.
    for (let i = pegouts.length - 1; i > 0; i--) {
      const j = this.rng.int(0, i);
      [pegouts[i], pegouts[j]] = [pegouts[j]!, pegouts[i]!];
    }
    // Roots, offsets and the MWEB header hash are commitments to data the simulation does not carry: random stand-ins.
    const roots = this.bytes(160);
    const mwebHeader = serializeMwebHeader({ height, roots, numTxos: this.numTxos, numKernels: kernels.length });
    const hogaddr = this.rng.fill(scratch(34), 2);
    hogaddr[0] = 0x58;
    hogaddr[1] = 0x20;
    const hogex = serializeHogEx(
      hogexInputs.map((o) => ({ prevHash: o.txidBytes, prevVout: o.vout, scriptSig: EMPTY, sequence: 0xffffffff, witness: [] })),
      [{ value: this.supply, script: hogaddr }, ...pegouts.map((p) => p.out)],
    );
    this.prevHogex = { txidBytes: hogex.txidBytes, vout: 0, value: this.supply, addr: HOGEX_OWNER };
    pegouts.forEach((p, i) => this.recordPegout(height, hogex, i + 1, p));

    const kernelFees = kernels.reduce((sum, k) => sum + k.fee, 0);
    const mweb = materialize ? serializeMwebBlock(mwebHeader, kernels) : null;
    return this.assemble(height, [...funding, ...pegins, hogex], mweb, materialize, canonicalFees + kernelFees);
  }

  private assemble(height: number, txs: SerializedTx[], mweb: Uint8Array | null, materialize: boolean, fees: number): GeneratedBlock {
    const segwit = txs.some((tx) => tx.raw[4] === 0x00 && tx.raw[5] === 0x01);
    const coinbase = this.coinbase(height, txs, segwit, SUBSIDY + fees);
    const all = [coinbase, ...txs];
    const header = serializeHeader({
      version: 0x20000000, prevHash: this.prevHash, merkleRoot: merkleRoot(all.map((t) => t.txidBytes)),
      time: this.time, bits: 0x207fffff, nonce: this.rng.u32(),
    });
    const hashBytes = sha256d(header);
    this.prevHash = hashBytes;
    const hash = displayHex(hashBytes);
    if (!materialize) return { height, hash, raw: null };
    const w = new Writer(128 + all.reduce((n, t) => n + t.raw.length, 0) + (mweb?.length ?? 0));
    w.bytes(header).compactSize(all.length);
    for (const tx of all) w.bytes(tx.raw);
    if (mweb) w.u8(0x01).bytes(mweb);
    return { height, hash, raw: copy(w.take()) };
  }

  /** BIP34 height push, the pool's tag; a witness commitment when the block carries witness data. */
  private coinbase(height: number, txs: SerializedTx[], segwit: boolean, value: number): SerializedTx {
    const heightPush = new Writer(8);
    const bytes: number[] = [];
    for (let h = height; h > 0; h = Math.floor(h / 256)) bytes.push(h % 256);
    if (bytes.length === 0 || (bytes[bytes.length - 1]! & 0x80)) bytes.push(0);
    heightPush.u8(bytes.length).bytes(new Uint8Array(bytes));
    const pool = mix32(this.seed, 5, height) % POOLS.length;
    const tag = this.poolTags[pool]!;
    const scriptSig = new Writer(40).bytes(heightPush.take()).u8(tag.length).bytes(tag).take();
    const outputs: TxOut[] = [{ value, script: this.poolScripts[pool]! }];
    if (segwit) {
      const wtxids = [new Uint8Array(32), ...txs.map((t) => sha256d(t.raw))];
      const commitment = sha256d(merkleRoot(wtxids), new Uint8Array(32));
      outputs.push({ value: 0, script: new Writer(38).bytes(WITNESS_COMMITMENT_PREFIX).bytes(commitment).take() });
    }
    return serializeTx(
      [{ prevHash: new Uint8Array(32), prevVout: 0xffffffff, scriptSig, sequence: 0xffffffff, witness: segwit ? [new Uint8Array(32)] : [] }],
      outputs,
    );
  }

  // --- behaviour -------------------------------------------------------------

  private schedule(e: DistributiveOmit<Event, 'seq'>): void {
    if (e.height > this.tip) return;
    this.events.push({ ...e, seq: this.seq++ } as Event);
    if (e.kind === 'exit') this.wallets.get(e.wallet)!.exitsLeft++;
  }

  private gap(): number {
    const r = this.rates;
    return Math.min(r.gapMaxBlocks, Math.max(1, Math.round(this.rng.logNormal(r.gapMedianBlocks, r.gapSigma))));
  }

  private feeRate(): number {
    const r = this.rates;
    const x = this.rng.next();
    if (x < r.feeDefaultShare) return 10;
    if (x < r.feeDefaultShare + r.feeMinimumShare) return 1;
    return Math.min(1_000, Math.max(1, Math.round(this.rng.logNormal(r.feeMedian * this.feeLevel, r.feeSigma))));
  }

  private roundAmount(): number {
    return ROUND_AMOUNTS[this.rng.weighted(ROUND_WEIGHTS)]!;
  }

  private pickUser(): number {
    const r = this.rates;
    if (this.rng.chance(r.servicePeginShare)) return this.rng.int(0, SERVICE_USERS - 1);
    if (this.recentUsers.length > 0 && this.rng.chance(r.returningUserShare)) return this.rng.pick(this.recentUsers);
    const user = this.nextUser++;
    if (this.recentUsers.length < RECENT_USERS) this.recentUsers.push(user);
    else this.recentUsers[user % RECENT_USERS] = user;
    return user;
  }

  /** A user decides to peg in: funding transactions now, the peg-in a few blocks later. */
  private startEpisode(height: number, peginHeight: number | null): SerializedTx[] {
    const r = this.rates;
    const at = peginHeight ?? height + this.rng.int(1, 6);
    let mergeInto: number | null = null;
    let user: number;
    const target = this.live.length > 0 && this.rng.chance(r.mergeShare) ? this.rng.pick(this.live) : null;
    if (target && target.mergeable) {
      mergeInto = target.id;
      user = target.user;
    } else {
      user = this.pickUser();
    }
    const service = user < SERVICE_USERS;
    const inputCount = !service && this.rng.chance(r.multiInputShare) ? this.rng.int(2, 3) : 1;
    const addrs = Array.from({ length: inputCount }, (_, k) => userAddr(this.seed, user, k));
    const canonicalFee = this.feeRateCanonical() * (PEGIN_BASE_VSIZE + addrs.reduce((n, a) => n + INPUT_VSIZE[a.type], 0));

    const x = this.rng.next();
    let kind: AmountKind;
    let total: number;
    let amount: number;
    if (inputCount === 1 && x < r.roundAmountShare) {
      kind = 'round';
      amount = this.roundAmount();
      total = amount + canonicalFee;
    } else if (x < r.roundAmountShare + r.roundInputShare) {
      kind = 'round_input';
      total = Math.max(this.roundAmount(), canonicalFee * 20);
      amount = total - canonicalFee;
    } else {
      kind = 'arbitrary';
      const coin = Math.min(20_000, Math.max(0.001, this.rng.logNormal(r.arbitraryMedianCoin, r.arbitrarySigma)));
      total = Math.round(coin * COIN);
      amount = total - canonicalFee;
    }
    const parts = splitAmount(this.rng, total, inputCount);
    const txs: SerializedTx[] = [];
    const inputs: Outpoint[] = [];
    for (let k = 0; k < inputCount; k++) {
      const tx = this.fundingTx(addrs[k]!, parts[k]!);
      this.retain(tx, at + RETAIN_BLOCKS);
      txs.push(tx);
      inputs.push({ txidBytes: tx.txidBytes, vout: 0, value: parts[k]!, addr: addrs[k]! });
    }
    const chain = mergeInto === null && this.rng.chance(r.multiHopShare)
      ? { id: this.nextChain++, cycles: this.rng.int(2, 5), cycle: 1, fundedBy: null }
      : null;
    this.schedule({ kind: 'pegin', height: at, episode: { user, inputs, amount, kind, canonicalFee, mergeInto, chain } });
    return txs;
  }

  private feeRateCanonical(): number {
    return this.rng.chance(0.7) ? 10 : this.rng.int(1, 40);
  }

  /** An unrelated payer (an exchange withdrawal, a friend) pays the user; the payer's own input is not followed. */
  private fundingTx(to: Addr, value: number): SerializedTx {
    const change = Math.round(this.rng.logNormal(5, 1.5) * COIN);
    return serializeTx(
      [{ prevHash: this.bytes(32), prevVout: this.rng.int(0, 3), scriptSig: EMPTY, sequence: 0xfffffffe, witness: [this.signature(), this.bytes(33)] }],
      [{ value, script: to.script }, { value: change, script: makeAddr('p2wpkh', this.bytes(20)).script }],
    );
  }

  /** Random filler (signatures, keys, MWEB commitments) in scratch memory. */
  private bytes(n: number): Uint8Array {
    return this.rng.fill(scratch(n));
  }

  private signature(): Uint8Array {
    const sig = this.bytes(72);
    sig[0] = 0x30;
    sig[1] = 0x45;
    sig[71] = 0x01;
    return sig;
  }

  private spend(o: Outpoint): TxIn {
    const base = { prevHash: o.txidBytes, prevVout: o.vout, sequence: 0xfffffffe };
    if (o.addr.type === 'p2pkh') {
      const scriptSig = new Writer(110).varBytes(this.signature()).varBytes(this.bytes(33)).take();
      return { ...base, scriptSig, witness: [] };
    }
    const scriptSig = o.addr.type === 'p2sh' ? new Writer(23).u8(0x16).u8(0x00).u8(0x14).bytes(o.addr.hash).take() : EMPTY;
    return { ...base, scriptSig, witness: [this.signature(), this.bytes(33)] };
  }

  private pegin(height: number, ep: Episode, kernels: Kernel[]): SerializedTx {
    const kernel: Kernel = { fee: PEGIN_KERNEL_FEE, peginAmount: ep.amount, pegouts: [], opaque: this.bytes(130) };
    kernels.push(kernel);
    const script = new Uint8Array(34);
    script.set([0x59, 0x20]);
    script.set(sha256(kernelBytes(kernel)), 2);
    const tx = serializeTx(ep.inputs.map((o) => this.spend(o)), [{ value: ep.amount, script }]);
    const id = `${tx.txid}:0`;
    const credited = ep.amount - PEGIN_KERNEL_FEE;
    this.supply += credited;
    this.numTxos += 1;
    const target = ep.mergeInto === null ? undefined : this.wallets.get(ep.mergeInto);
    this.truth.pegin({
      pegin: id, height, amount_sat: ep.amount, user: ep.user, amount_kind: ep.kind, input_count: ep.inputs.length,
      cluster: new Set(ep.inputs.map((o) => o.addr.script.join())).size > 1,
      funding_addresses: ep.inputs.map((o) => addressOf(o.addr.script)),
      merged: target !== undefined,
      chain_id: ep.chain?.id ?? null, cycle: ep.chain?.cycle ?? null, funded_by_pegout: ep.chain?.fundedBy ?? null,
    });
    if (target) {
      target.balance += credited;
      target.sources.push(id);
      target.pure = false;
      return tx;
    }
    const wallet: Wallet = {
      id: this.nextWallet++, user: ep.user, balance: credited, sources: [id], firstHeight: height, pure: true,
      mergeable: false, chain: ep.chain, pegin: id, peginAmount: ep.amount, slot: this.live.length, exitsLeft: 0,
    };
    this.wallets.set(wallet.id, wallet);
    this.live.push(wallet);
    this.planExits(height, wallet);
    return tx;
  }

  private planExits(height: number, w: Wallet): void {
    this.planEvents(height, w);
    // Coins that never leave (or whose exit falls after the tip) need no state.
    if (w.exitsLeft === 0) this.retire(w);
  }

  private planEvents(height: number, w: Wallet): void {
    const r = this.rates;
    if (w.chain) {
      this.schedule({ kind: 'exit', height: height + this.gap(), wallet: w.id, final: true });
      return;
    }
    const x = this.rng.next();
    if (x < r.neverExitShare) return;
    if (x < r.neverExitShare + r.splitShare) {
      const parts = this.rng.int(2, 3);
      const keepLast = this.rng.chance(0.3);
      let at = height;
      for (let i = 0; i < parts; i++) {
        at += i === 0 ? this.gap() : Math.ceil(this.gap() / 2);
        this.schedule({ kind: 'exit', height: at, wallet: w.id, final: i === parts - 1 && !keepLast });
      }
      return;
    }
    if (x < r.neverExitShare + r.splitShare + r.transferShare) {
      const sendAt = height + Math.ceil(this.gap() / 2);
      this.schedule({ kind: 'transfer', height: sendAt, wallet: w.id });
      this.schedule({ kind: 'exit', height: sendAt + this.gap(), wallet: w.id, final: true });
      return;
    }
    w.mergeable = true;
    this.schedule({ kind: 'exit', height: height + this.gap(), wallet: w.id, final: true });
  }

  private retire(w: Wallet): void {
    const last = this.live.pop()!;
    if (last !== w) {
      this.live[w.slot] = last;
      last.slot = w.slot;
    }
    this.wallets.delete(w.id);
  }

  private transfer(walletId: number, kernels: Kernel[]): void {
    const w = this.wallets.get(walletId);
    if (!w || this.live.length < 2) return;
    let to = this.rng.pick(this.live);
    if (to === w) to = this.live[(w.slot + 1) % this.live.length]!;
    const amount = Math.floor(w.balance * (0.25 + 0.35 * this.rng.next()));
    if (amount < MIN_PEGOUT || w.balance - amount - TRANSFER_KERNEL_FEE < MIN_PEGOUT) return;
    w.balance -= amount + TRANSFER_KERNEL_FEE;
    w.pure = false;
    to.balance += amount;
    to.pure = false;
    for (const s of w.sources) if (!to.sources.includes(s)) to.sources.push(s);
    this.supply -= TRANSFER_KERNEL_FEE;
    this.numTxos += 2;
    kernels.push({ fee: TRANSFER_KERNEL_FEE, peginAmount: null, pegouts: [], opaque: this.bytes(130) });
  }

  private destination(w: Wallet, final: boolean): { kind: DestinationKind; addr: Addr; nextUser: number | null } {
    if (final && w.chain && w.chain.cycle < w.chain.cycles) {
      const nextUser = this.nextUser++;
      return { kind: 'next_hop', addr: userAddr(this.seed, nextUser, 0), nextUser };
    }
    const r = this.rates;
    const i = this.rng.weighted([r.destFresh, r.destReuse, r.destExchange]);
    if (i === 1) return { kind: 'funding_address_reuse', addr: userAddr(this.seed, w.user, 0), nextUser: null };
    if (i === 2) {
      const e = this.rng.int(0, r.exchanges - 1);
      return { kind: 'exchange', addr: exchangeAddr(this.seed, e, this.rng.int(0, r.depositAddressesPerExchange - 1)), nextUser: null };
    }
    return { kind: 'fresh', addr: this.freshAddr(), nextUser: null };
  }

  private exit(walletId: number, final: boolean, kernels: Kernel[]): PendingPegout | null {
    const w = this.wallets.get(walletId);
    if (!w) return null;
    w.exitsLeft--;
    const p = this.pegout(w, final, kernels);
    if (w.exitsLeft === 0 && this.wallets.has(w.id)) this.retire(w);
    return p;
  }

  private pegout(w: Wallet, final: boolean, kernels: Kernel[]): PendingPegout | null {
    const dest = this.destination(w, final);
    const feeRate = this.feeRate();
    const fee = PEGOUT_KERNEL_BASE_FEE + feeRate * (8 + 1 + dest.addr.script.length);
    const extraHops = this.rng.chance(this.rates.extraHopShare) ? this.rng.int(1, 2) : 0;
    const hopFees = extraHops * TRANSFER_KERNEL_FEE;
    const available = w.balance - fee - hopFees;
    const amount = final ? available : this.partialAmount(w.balance);
    if (amount < MIN_PEGOUT || amount > available) return null;
    const roundTrip = final && w.pure;
    const partial = !final;
    w.balance -= amount + fee + hopFees;
    this.supply -= amount + fee + hopFees;
    this.numTxos += 1 + extraHops;
    const out = { value: amount, script: dest.addr.script };
    for (let i = 0; i < extraHops; i++) kernels.push({ fee: TRANSFER_KERNEL_FEE, peginAmount: null, pegouts: [], opaque: this.bytes(130) });
    kernels.push({ fee, peginAmount: null, pegouts: [out], opaque: this.bytes(130) });
    const sources = w.sources.slice();
    w.pure = false;
    return { out, wallet: w, final, partial, dest: dest.kind, nextUser: dest.nextUser, fee: fee + hopFees, feeRate, extraHops, sources, roundTrip };
  }

  /** A partial exit: often a round amount typed by the user, else a share of the balance. */
  private partialAmount(balance: number): number {
    if (this.rng.chance(0.5)) {
      const round = this.roundAmount();
      if (round < balance * 0.7) return round;
    }
    return Math.floor(balance * (0.2 + 0.4 * this.rng.next()));
  }

  private recordPegout(height: number, hogex: SerializedTx, vout: number, p: PendingPegout): void {
    const id = `${hogex.txid}:${vout}`;
    const w = p.wallet;
    const single = p.sources.length === 1 ? p.sources[0]! : null;
    this.truth.pegout({
      pegout: id, height, amount_sat: p.out.value, address: addressOf(p.out.script), user: w.user,
      destination_kind: p.dest, source_pegins: p.sources, source_pegin: single, round_trip: p.roundTrip,
      partial: p.partial, gap_blocks: single ? height - w.firstHeight : null, fee_sat: p.fee, fee_rate: p.feeRate,
      extra_hops: p.extraHops, amount_difference_sat: p.roundTrip ? w.peginAmount - p.out.value : null,
      chain_id: w.chain?.id ?? null, cycle: w.chain?.cycle ?? null,
    });
    if (w.chain) {
      this.truth.cycle({
        height, chain_id: w.chain.id, n_cycles: w.chain.cycles, cycle: w.chain.cycle, pegin: w.pegin,
        funded_by_pegout: w.chain.fundedBy, pegout: id, destination_kind: p.dest,
      });
    }
    if (p.dest === 'next_hop' && w.chain && p.nextUser !== null) {
      const at = height + HOGEX_MATURITY + Math.round(this.rng.logNormal(this.rates.hopDelayMedianBlocks, 0.8));
      const addr = userAddr(this.seed, p.nextUser, 0);
      const input: Outpoint = { txidBytes: hogex.txidBytes, vout, value: p.out.value, addr };
      const canonicalFee = this.feeRateCanonical() * (PEGIN_BASE_VSIZE + INPUT_VSIZE[addr.type]);
      this.retain(hogex, at + RETAIN_BLOCKS);
      this.schedule({
        kind: 'pegin', height: at,
        episode: {
          user: p.nextUser, inputs: [input], amount: p.out.value - canonicalFee, kind: 'hop', canonicalFee, mergeInto: null,
          chain: { id: w.chain.id, cycles: w.chain.cycles, cycle: w.chain.cycle + 1, fundedBy: id },
        },
      });
    }
  }
}

/** Splits a total over n inputs (each at least a tenth of an equal share). */
function splitAmount(rng: Rng, total: number, n: number): number[] {
  if (n === 1) return [total];
  const weights = Array.from({ length: n }, () => 0.1 + rng.next());
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => Math.floor((total * w) / sum));
  parts[0]! += total - parts.reduce((a, b) => a + b, 0);
  return parts;
}
