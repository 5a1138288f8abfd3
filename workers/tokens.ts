// piscina task: approximate token count of a JSON text with the o200k_base encoding. CPU-heavy,
// so it runs in the pool and never on the main thread (decisions §1).
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';

export default function countTokensTask(text: string): number {
  return countTokens(text);
}
