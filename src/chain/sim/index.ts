/** The built-in simulated chain (docs/simulation.md): a ChainSource with ground truth. */
export { createSimSource, type SimSource, type SimSourceOptions } from './source.js';
export { DEFAULT_RATES, PRESETS, SIM_PRESET_NAMES, presetRates, type SimPresetName, type SimRates } from './presets.js';
export { SIM_MWEB_ACTIVATION_HEIGHT } from './chain.js';
export {
  SIM_LABELS_FILE, TRUTH_FILES, readSimTruth,
  type SimTruth, type TruthCycle, type TruthMeta, type TruthPegin, type TruthPegout,
} from './truth.js';
