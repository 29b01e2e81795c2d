/**
 * Behaviour model rates of the simulated chain. Every default is explained in
 * docs/simulation.md; presets differ in length, activity and gap scale only.
 */
export type SimPresetName = 'tiny' | 'demo' | 'mainnet' | 'x10';
export const SIM_PRESET_NAMES: readonly SimPresetName[] = ['tiny', 'demo', 'mainnet', 'x10'];

export interface SimRates {
  /** Blocks generated after MWEB activation. */
  blocks: number;
  /** Mean new (canonical) peg-in episodes per block; multi-hop peg-ins come on top. */
  peginsPerBlock: number;
  /** Log-sigma of the slowly drifting activity level (busy and quiet weeks). */
  activityVolatility: number;
  /** An episode by a user seen recently (repeat peg-ins from the same funding address). */
  returningUserShare: number;
  /** Peg-ins spending 2-3 inputs from 2-3 addresses of one user (clusters). */
  multiInputShare: number;
  /** Peg-in of exactly a popular round amount (wallet funded with amount + canonical fee). */
  roundAmountShare: number;
  /** Peg-in of a whole round input minus the canonical fee (Litecoin Core's whole-input behaviour). */
  roundInputShare: number;
  /** Median and log-sigma of arbitrary (heavy-tailed) input sums, in coin. */
  arbitraryMedianCoin: number;
  arbitrarySigma: number;
  /** Peg-ins funded from a labelled service's hot wallet. */
  servicePeginShare: number;
  /** Exit plans: coins never leave / leave in 2-3 parts / part sent to another MWEB user first. */
  neverExitShare: number;
  splitShare: number;
  transferShare: number;
  /** A peg-in that tops up a wallet already in MWEB (its exit merges both). */
  mergeShare: number;
  /** Start of a multi-hop chain of 2..5 peg-in/peg-out cycles. */
  multiHopShare: number;
  /** Round trips that move coins inside MWEB first (+3,900 litoshi per extra hop). */
  extraHopShare: number;
  /** Peg-in → peg-out gap in blocks: log-normal median and sigma, clipped. */
  gapMedianBlocks: number;
  gapSigma: number;
  gapMaxBlocks: number;
  /** Blocks between a multi-hop peg-out and the next peg-in (at least 6: HogEx outputs mature). */
  hopDelayMedianBlocks: number;
  /** Destination weights of an exit: fresh address, the user's funding address, an exchange deposit address. */
  destFresh: number;
  destReuse: number;
  destExchange: number;
  /** Peg-out fee rates (litoshi/vB): share at the wallet default 10, share at 1, rest log-normal (median, sigma). */
  feeDefaultShare: number;
  feeMinimumShare: number;
  feeMedian: number;
  feeSigma: number;
  /** Exchanges, and deposit addresses per exchange (shared by many users). */
  exchanges: number;
  depositAddressesPerExchange: number;
  /** Mean block interval in seconds (exponential jitter). */
  blockSeconds: number;
}

export const DEFAULT_RATES: SimRates = {
  blocks: 600_000,
  peginsPerBlock: 0.086,
  activityVolatility: 0.35,
  returningUserShare: 0.25,
  multiInputShare: 0.12,
  roundAmountShare: 0.3,
  roundInputShare: 0.3,
  arbitraryMedianCoin: 1.5,
  arbitrarySigma: 1.8,
  servicePeginShare: 0.02,
  neverExitShare: 0.16,
  splitShare: 0.06,
  transferShare: 0.1,
  mergeShare: 0.04,
  multiHopShare: 0.03,
  extraHopShare: 0.12,
  gapMedianBlocks: 576,
  gapSigma: 2.0,
  gapMaxBlocks: 105_120,
  hopDelayMedianBlocks: 60,
  destFresh: 0.55,
  destReuse: 0.15,
  destExchange: 0.3,
  feeDefaultShare: 0.5,
  feeMinimumShare: 0.2,
  feeMedian: 25,
  feeSigma: 1.0,
  exchanges: 3,
  depositAddressesPerExchange: 3,
  blockSeconds: 150,
};

/** Presets: length and activity; gaps shrink with short chains so round trips complete inside them. */
export const PRESETS: Record<SimPresetName, Partial<SimRates>> = {
  tiny: { blocks: 3_000, peginsPerBlock: 0.15, gapMedianBlocks: 80, gapSigma: 1.4, gapMaxBlocks: 2_000, hopDelayMedianBlocks: 12 },
  demo: { blocks: 20_000, peginsPerBlock: 0.25, gapMedianBlocks: 300, gapSigma: 1.6, gapMaxBlocks: 12_000, hopDelayMedianBlocks: 30 },
  mainnet: {},
  x10: { peginsPerBlock: 0.87 },
};

export function presetRates(name: SimPresetName, overrides: Partial<SimRates> = {}): SimRates {
  if (!(SIM_PRESET_NAMES as readonly string[]).includes(name)) {
    throw new Error(`unknown sim preset "${name}"; allowed: ${SIM_PRESET_NAMES.join(', ')}`);
  }
  return { ...DEFAULT_RATES, ...PRESETS[name], ...overrides };
}

/** MWEB kernel fees of Litecoin Core 0.21.2.1 (docs/methodology.md). */
export const PEGIN_KERNEL_FEE = 3_900;
export const TRANSFER_KERNEL_FEE = 3_900;
export const PEGOUT_KERNEL_BASE_FEE = 2_200;
