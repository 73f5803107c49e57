// PLACEHOLDER written by the lead so the build compiles; the extraction helper replaces this file.
export interface ExtractInput { subject?: string | null; text?: string | null; html?: string | null }
export interface Extraction { otp: string | null; verification_link: string | null }
export function extract(input: ExtractInput): Extraction {
  const text = `${input.subject ?? ''}\n${input.text ?? ''}`;
  const otp = /\b(\d{4,6})\b/.exec(text)?.[1] ?? null;
  const link = /https?:\/\/\S*(verify|confirm)\S*/i.exec(`${input.text ?? ''} ${input.html ?? ''}`)?.[0]?.replace(/["'<>].*$/, '') ?? null;
  return { otp, verification_link: link };
}
