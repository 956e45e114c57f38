// Answer shapes both the studio (types.ts) and the transcript pages (transcript-types.ts) read;
// their own module, so neither of those imports the other.

export interface UploadTarget {
  method: "PUT";
  url: string;
  headers: Record<string, string>;
  expires_at: string;
}

export interface Segment {
  start: number;
  end: number;
  text: string;
}
