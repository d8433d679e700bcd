export interface RateLimitCounterTable {
  bucket: string;
  subject: string;
  hits: number;
  window_ends: Date;
}
