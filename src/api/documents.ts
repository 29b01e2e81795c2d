/**
 * The shapes of the API's documents that several endpoint modules share
 * (docs/api.md "Endpoints"): trace nodes, attribution and link records. Types
 * only, so the CSV rows (csv-rows.ts) and the endpoint modules depend on this
 * module, never on each other.
 */
export interface PeginLink {
  pegout_txid: string; pegout_vout: number; pegout_amount: number; pegout_address: string | null;
  pegout_entity: string | null; pegout_category: string | null; confidence: number; block_gap: number;
  candidate_count: number; reasons: string[];
}
export interface PegoutLink {
  pegin_txid: string; pegin_vout: number; pegin_amount: number; pegin_height: number;
  confidence: number; block_gap: number; candidate_count: number; reasons: string[];
}
/** An address's attribution; `source` is the label source that won (docs/labels.md). */
export interface Attribution { entity: string; category: string; via: 'direct' | 'cluster'; confidence: number; cluster_id: string | null; source: string }
export interface PeginNode {
  txid: string; vout: number; block_height: number; block_time: number; amount: number; source_address: string | null;
  input_count: number; inputs: { address: string | null; value: number; attribution: Attribution | null }[];
  links: PeginLink[];
  score: { privacy_score: number; anonymity_set: number; max_link_confidence: number | null; reasons: string[] } | null;
}
export interface PegoutNode {
  txid: string; vout: number; block_height: number; block_time: number; amount: number; address: string | null;
  attribution: Attribution | null; links: PegoutLink[];
  score: { risk_score: number; dest_category: string | null; traceability: number | null; reasons: string[] } | null;
}
export type TraceType = 'address' | 'pegin_tx' | 'pegout_tx' | 'not_found';
export interface Trace {
  query: string; type: TraceType; attribution: Attribution | null;
  cluster: { cluster_id: string; size: number } | null;
  pegins: PeginNode[]; pegouts: PegoutNode[];
}
export interface LinkRecord {
  pegout_txid: string; pegout_vout: number; pegout_height: number; pegout_amount: number;
  pegout_address: string | null; pegout_entity: string | null; pegout_category: string | null;
  pegin_txid: string; pegin_vout: number; pegin_height: number; pegin_amount: number;
  confidence: number; risk_score: number | null; block_gap: number; candidate_count: number; reasons: string[];
}
