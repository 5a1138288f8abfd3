/** `1 server`, `2 servers`: a count and its noun. Pure. */
export const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
