// Multilingual keyword lists for the code scorer and the matcher that finds them in text.
// Keywords are data, not rules: adding a language means adding phrases here, nothing else.

/**
 * Phrase syntax: lower case; a space or hyphen matches an optional space, hyphen or nothing
 * ("sign in" also finds "sign-in" and "signin"); `*` at an end lifts the word boundary there
 * ("*code" finds "Sicherheitscode", "verif*" finds "verifying"). Phrases without Latin or Cyrillic
 * letters (CJK, Hangul) never need boundaries. Where phrases overlap, the match that starts first
 * wins, then the longest, so "postal code" beats "code" and "promo code" is never a code word.
 * Phrases compile into prefix-trie regexes, one per first character; the input is lower-cased first.
 */
export interface Hit {
  start: number;
  end: number;
  kind: number;
  /** The keyword is a phrase of several words ("new password") or a long word without spaces ("本登録"). */
  phrase: boolean;
}

const WORDY = /[a-z\u00c0-\u024f\u0400-\u04ff]/i;
/**
 * Letters and digits of the scripts that separate words with spaces, as an explicit class: the
 * matcher runs without the `u` and `i` flags (it lower-cases its input instead), because a
 * case-insensitive Unicode alternation of ~600 phrases takes V8 over 100 ms to compile.
 */
const WORD = 'a-z0-9\\u00aa\\u00b5\\u00ba\\u00df-\\u00f6\\u00f8-\\u024f\\u0370-\\u03ff\\u0400-\\u04ff';

function norm(s: string): string {
  return s.toLowerCase().replace(/[\s\u00a0\-*]/g, '').replace(/\u2019/g, "'");
}

/** Lower-case without changing length (a few characters, like "İ", grow when lower-cased). */
function lower(s: string): string {
  const l = s.toLowerCase();
  if (l.length === s.length) return l;
  let out = '';
  for (const ch of s) {
    const c = ch.toLowerCase();
    out += c.length === ch.length ? c : ch;
  }
  return out;
}

function toPattern(core: string): string {
  return core
    .toLowerCase()
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/[ \-]+/g, '[\\s\\u00a0\\-]?')
    .replace(/'/g, "['\u2019]");
}

/** Split a pattern into atoms: an escape, a class (with its `?`), a lookahead, or one character. */
function atoms(pattern: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < pattern.length) {
    let j = i + 1;
    if (pattern.startsWith('(?!', i)) j = pattern.indexOf(')', i) + 1;
    else if (pattern[i] === '[') {
      j = pattern.indexOf(']', i) + 1;
      if (pattern[j] === '?') j++;
    } else if (pattern[i] === '\\') j = i + 2;
    out.push(pattern.slice(i, j));
    i = j;
  }
  return out;
}

interface TrieNode {
  next: Map<string, TrieNode>;
  end: boolean;
  depth: number;
}

/**
 * Compile patterns into one alternation shaped as a prefix trie ("a(?:ccount number|venue|…)"),
 * so the engine tests each character once per branch instead of once per phrase. Deeper branches
 * come first and a phrase's own end comes last, so the longest phrase at a position wins.
 */
function trieSource(patterns: string[]): string {
  const root: TrieNode = { next: new Map(), end: false, depth: 0 };
  for (const p of patterns) {
    let node = root;
    const parts = atoms(p);
    for (const a of parts) {
      let child = node.next.get(a);
      if (!child) node.next.set(a, (child = { next: new Map(), end: false, depth: 0 }));
      node.depth = Math.max(node.depth, parts.length);
      node = child;
    }
    node.end = true;
  }
  const emit = (node: TrieNode): string => {
    const alts = [...node.next].sort((x, y) => y[1].depth - x[1].depth).map(([a, child]) => a + emit(child));
    if (node.end && alts.length > 0) alts.push('');
    if (alts.length === 0) return '';
    return alts.length === 1 ? (alts[0]!.length > 0 && !node.end ? alts[0]! : `(?:${alts[0]})`) : `(?:${alts.join('|')})`;
  };
  return emit(root);
}

/** The UTF-16 codes a pattern's first atom matches: a character, an escaped one, or a class. */
function firstCodes(pattern: string): number[] {
  const atom = atoms(pattern)[0]!;
  if (atom.endsWith('?') || atom.startsWith('(?')) throw new Error(`keyword pattern "${pattern}" has no fixed first character`);
  if (atom.length === 1) return [atom.charCodeAt(0)];
  if (atom.length === 2 && atom[0] === '\\') return [atom.charCodeAt(1)];
  const cls = new RegExp(`^${atom}$`);
  const codes: number[] = [];
  for (let code = 0; code <= 0xffff; code++) if (cls.test(String.fromCharCode(code))) codes.push(code);
  return codes;
}

const DIRECT_CODES = 0x500;

/** WORD as a table of UTF-16 codes: every code it lists is below DIRECT_CODES. */
const WORD_CODES = (() => {
  const word = new RegExp(`[${WORD}]`);
  const table = new Uint8Array(DIRECT_CODES);
  for (let code = 0; code < DIRECT_CODES; code++) table[code] = word.test(String.fromCharCode(code)) ? 1 : 0;
  return table;
})();

/** Whether a UTF-16 code is in WORD, the class the boundaries test (lower-cased input). */
function isWordCode(c: number): boolean {
  return c < DIRECT_CODES && WORD_CODES[c] === 1;
}

/**
 * One sticky trie regex per first character, for the phrases that can start with it. The scan
 * tries a position only when its character starts some phrase (and, for bounded phrases, a word):
 * one table lookup rejects the rest, and the engine never walks the alternation of every other
 * first character. A position's phrases keep their order from the whole trie, so the longest
 * still wins.
 */
class FirstCharIndex {
  private readonly direct: (RegExp | undefined)[] = new Array<RegExp | undefined>(DIRECT_CODES).fill(undefined);
  private readonly other = new Map<number, RegExp>();

  constructor(patterns: string[]) {
    const byCode = new Map<number, string[]>();
    for (const p of patterns) {
      for (const code of firstCodes(p)) {
        const list = byCode.get(code);
        if (list) list.push(p);
        else byCode.set(code, [p]);
      }
    }
    for (const [code, list] of byCode) {
      const re = new RegExp(trieSource(list), 'y');
      if (code < DIRECT_CODES) this.direct[code] = re;
      else this.other.set(code, re);
    }
  }

  /** The length of the phrase starting at `at` (whose character is `code`), or 0: none starts with it. */
  matchAt(text: string, at: number, code: number): number {
    const re = code < DIRECT_CODES ? this.direct[code] : this.other.get(code);
    if (re === undefined) return 0;
    re.lastIndex = at;
    return re.test(text) ? re.lastIndex - at : 0;
  }
}

/**
 * Several words ("new password"), or a word of a script without spaces or case that carries its
 * object with it ("本登録", "활성화"): such a keyword says more than one Latin word does.
 */
function isPhrase(matched: string): boolean {
  return /[\s\u00a0-]/.test(matched) || (!WORDY.test(matched) && matched.length >= 3);
}

export class KeywordMatcher {
  /** Phrases that start at a word boundary, and those that may start inside a word ("*code", CJK). */
  private readonly bounded: FirstCharIndex;
  private readonly open: FirstCharIndex;
  private readonly kinds = new Map<string, number>();
  /** Matched text → kind; few distinct spellings occur, so normalising each once is enough. */
  private readonly seen = new Map<string, number | undefined>();

  constructor(lists: ReadonlyArray<readonly [kind: number, phrases: readonly string[]]>) {
    const bounded: string[] = [];
    const open: string[] = [];
    for (const [kind, phrases] of lists) {
      for (const phrase of phrases) {
        const key = norm(phrase);
        const prev = this.kinds.get(key);
        if (prev !== undefined && prev !== kind) throw new Error(`keyword "${phrase}" listed with two kinds`);
        this.kinds.set(key, kind);
        const core = phrase.replace(/^\*|\*$/g, '');
        const wordy = WORDY.test(core);
        // No right boundary after a trailing dot or symbol ("no.", "n°"): the number may follow directly.
        const right = wordy && !phrase.endsWith('*') && /[\p{L}\p{N}]$/u.test(core) ? `(?![${WORD}])` : '';
        (wordy && !phrase.startsWith('*') ? bounded : open).push(toPattern(core) + right);
      }
    }
    this.bounded = new FirstCharIndex(bounded);
    this.open = new FirstCharIndex(open);
  }

  /**
   * All non-overlapping hits in text[from, to), in order: at each position a bounded phrase first,
   * then an open one; after a hit the scan goes on from its end. Callers keep the range short.
   */
  find(text: string, from = 0, to = text.length): Hit[] {
    const slice = lower(from === 0 && to === text.length ? text : text.slice(from, to));
    const hits: Hit[] = [];
    let i = 0;
    while (i < slice.length) {
      const code = slice.charCodeAt(i);
      let length = 0;
      if (i === 0 || !isWordCode(slice.charCodeAt(i - 1))) length = this.bounded.matchAt(slice, i, code);
      if (length === 0) length = this.open.matchAt(slice, i, code);
      if (length === 0) {
        i++;
        continue;
      }
      const matched = slice.slice(i, i + length);
      let kind = this.seen.get(matched);
      if (kind === undefined && !this.seen.has(matched)) {
        kind = this.kinds.get(norm(matched));
        if (this.seen.size < 4096) this.seen.set(matched, kind);
      }
      if (kind !== undefined) hits.push({ start: from + i, end: from + i + length, kind, phrase: isPhrase(matched) });
      i += length;
    }
    return hits;
  }

  has(text: string, kind: number): boolean {
    return this.find(text).some((h) => h.kind === kind);
  }
}

/** Kinds used by the code scorer. */
export const CODE_WORD = 1;
export const NUMBER_LABEL = 2;
/** Meeting invitations: their numeric passcodes and IDs are not one-time codes. */
export const MEETING = 3;
/** "Enter", "use", "type": a number right after one of these is what to type in ("Use 739205 to sign in"). */
export const ENTER = 4;

const ENTER_WORDS = [
  'enter', 'use', 'type', 'input', 'paste', 'provide', 'key in', 'eingeben', 'gib', 'geben sie', 'verwende',
  'verwenden sie', 'nutze', 'voer', 'vul', 'gebruik', 'saisissez', 'saisir', 'entrez', 'utilisez', 'introduce',
  'introduzca', 'ingresa', 'ingrese', 'usa', 'utiliza', 'escribe', 'digite', 'insira', 'informe', 'inserisci',
  'utilizza', 'introduceți', 'wpisz', 'wprowadź', 'użyj', 'podaj', 'zadejte', 'použijte', 'zadajte', 'add meg',
  'írd be', 'írja be', 'ange', 'använd', 'skriv', 'indtast', 'brug', 'skriv inn', 'bruk', 'oppgi', 'syötä',
  'käytä', 'girin', 'girip', 'kullanın', 'εισάγετε', 'πληκτρολογήστε', 'χρησιμοποιήστε', 'введите',
  'используйте', 'укажите', 'введіть', 'використайте', 'הזן', 'הזינו', 'הקלד', 'أدخل', 'استخدم', 'दर्ज करें',
  'กรอก', 'ป้อน', 'nhập', 'masukkan', 'gunakan', '入力', '输入', '輸入', '입력',
];

const MEETING_WORDS = [
  // Baltic, South Slavic, Central European and Nordic words for a meeting
  'koosolek', 'koosoleku', 'sanāksme', 'sapulce', 'susitikimas', 'susitikimo', 'sestanek', 'sestanka', 'sastanak',
  'sastanka', 'састанак', 'среща', 'srečanje', 'schůzky', 'stretnutie', 'stretnutia', 'ședință', 'ședința',
  'értekezlet', 'megbeszélés', 'mkutano',
  'meeting', 'meeting id', 'webinar', 'dial in', 'conference id', 'join zoom', 'zoom meeting', 'teams meeting',
  'besprechung', 'besprechungs id', 'konferenz', 'réunion', 'reunión', 'reunião', 'videollamada', 'videochamada',
  'videochiamata', 'appel vidéo', 'встреча', 'видеовстреч*', 'видеозвон*', 'конференция',
  '会议', '會議', '会議', 'ミーティング', '회의', 'riunione', 'id riunione', 'vergadering', 'spotkanie', 'schůzka',
  'möte', 'møde', 'møte', 'kokous', 'toplantı', 'σύσκεψη', 'פגישה', 'اجتماع', 'मीटिंग', 'การประชุม', 'cuộc họp', 'rapat',
];

/** Words that name a one-time code. */
const CODE_WORDS = [
  // English (and Dutch/German/French compounds through "*code")
  '*code', '*codes', 'otp', 'one time password', 'one time pin', 'pin', 'pin number', 'verification number',
  'security number', 'authentication number', 'token', '2fa', 'mfa', 'tan', 'temporary password',
  // German
  'einmalpasswort', 'einmalkennwort', 'einmal passwort', 'mtan', 'smstan', 'bestätigungsnummer',
  // French
  'mot de passe à usage unique', 'mot de passe unique', 'mot de passe temporaire',
  // Spanish / Portuguese / Italian
  'código', 'códigos', 'codigo', 'codigos', 'clave', 'clave de acceso', 'contraseña de un solo uso',
  'contraseña temporal', 'senha', 'senha temporária', 'codice', 'codici',
  // Russian
  'код*', 'одноразовый пароль', 'временный пароль', 'пароль для входа', 'пин код',
  // Japanese
  'コード', '確認番号', '認証番号', '暗証番号', 'ワンタイムパスワード', 'パスコード', 'ワンタイムパス',
  // Chinese (simplified and traditional)
  '验证码', '驗證碼', '校验码', '校驗碼', '动态码', '動態碼', '动态密码', '動態密碼', '确认码', '確認碼',
  '安全码', '安全碼', '认证码', '認證碼', '验证代码', '驗證代碼', '登录码', '登入碼', '授权码', '授權碼',
  '一次性密码', '一次性密碼', '校验代码', '动态口令', '動態口令',
  // Other languages: Dutch/German/Nordic compounds are caught by "*code"/"*kode"/"*koodi"
  'kod', 'kodu', 'kodem', 'kodunuz', 'kodun', 'kód*', '*kod', '*koden', 'koden', '*kode', '*koden', '*koodi',
  '*koodisi', 'cod', 'codul', 'κωδικός', 'κωδικό', 'κωδικού', 'קוד', 'הקוד', 'رمز', 'الرمز', 'كود', 'कोड',
  'ओटीपी', 'รหัส', 'mã', 'kode', 'kodenya', 'รหัส otp',
  // Persian and Urdu ("رمز پویا", the dynamic password of Iranian card payments; Urdu "کوڈ")
  'رمز پویا', 'رمز یکبار مصرف', 'کد تأیید', 'کد تایید', 'کد', 'کوڈ', 'تصدیقی کوڈ', 'او ٹی پی',
  // Baltic, South Slavic, Bulgarian, Swahili, Filipino, Malay
  'kood', 'koodi', 'koodiga', '*kood', 'kods', '*kods', 'kodas', 'kodą', 'kodo', '*kodas', 'koda',
  'šifra', 'šifru', 'шифра', 'шифру', 'msimbo', 'nambari ya siri', 'nambari ya uthibitisho', 'uthibitisho', 'nenosiri la mara moja',
  'kodigo', 'kowd', 'kod pengesahan', 'kod keselamatan', 'kod sekali guna',
  // Georgian and Armenian
  'კოდი', 'კოდს', 'კოდით', 'ერთჯერადი კოდი', 'ერთჯერადი პაროლი', 'დადასტურების კოდი', 'կոդ', 'կոդը',
  'հաստատման կոդ', 'միանգամյա գաղտնաբառ', 'միանգամյա կոդ',
  // Korean
  '인증번호', '인증 번호', '인증코드', '인증 코드', '확인코드', '확인 코드', '보안코드', '보안 코드', '코드',
  '일회용 비밀번호',
  // "One-time password" where the language's word for password is not a code word by itself
  'hasło jednorazowe', 'jednorazowe hasło', 'hasło sms', 'tek kullanımlık şifre*', 'tek kullanımlık parola*',
  'eenmalig wachtwoord', 'password monouso', 'password temporanea', 'password usa e getta', 'engångslösenord*',
  'engangspassord', 'engangsadgangskode', 'kertakäyttöinen salasana', 'kertasalasana', 'jednorázové heslo',
  'parolă unică', 'parola unică', 'egyszer használatos jelszó', 'одноразовий пароль',
  'κωδικός μιας χρήσης', 'סיסמה חד פעמית', 'كلمة المرور لمرة واحدة', 'वन टाइम पासवर्ड', 'mật khẩu một lần',
  'kata sandi sekali pakai', 'senha de uso único',
];

/** Labels of numbers that are not codes; also the "code" compounds that are not one-time codes. */
const NUMBER_LABELS = [
  // English
  'order', 'orders', 'order number', 'order no', 'order id', 'invoice', 'invoice number', 'inv', 'receipt',
  'ticket', 'ticket number', 'case', 'case number', 'booking', 'booking number', 'booking reference',
  'reservation', 'reservation number', 'confirmation number', 'confirmation no', 'reference', 'ref',
  'reference number', 'account number', 'account no', 'acct', 'card', 'card number', 'ending', 'ending in',
  'ends in', 'member number', 'member no', 'member id', 'membership', 'customer number', 'customer no',
  'customer id', 'client number', 'tracking', 'tracking number', 'shipment', 'parcel', 'package', 'item',
  'sku', 'model', 'serial', 'zip', 'zip code', 'zipcode', 'postal code', 'postcode', 'post code',
  'area code', 'phone', 'telephone', 'tel', 'call', 'fax', 'hotline', 'whatsapp', 'routing',
  'routing number', 'iban', 'swift', 'bic', 'sort code', 'id', 'user id', 'pipeline', 'build',
  'job', 'issue', 'pull request', 'version', 'commit', 'room', 'suite', 'apt', 'unit', 'floor', 'street',
  'st', 'avenue', 'ave', 'road', 'rd', 'blvd', 'boulevard', 'lane', 'ln', 'drive', 'highway', 'po box',
  'flight', 'seat', 'gate', 'terminal', 'store', 'branch', 'promo', 'promo code', 'promotion code',
  'promotional code', 'discount code', 'coupon', 'coupon code', 'voucher', 'voucher code', 'gift card',
  'gift code', 'referral code', 'invite code', 'invitation code', 'beta code', 'access code for the event', 'claim', 'policy', 'patient', 'employee', 'student', 'license', 'vat',
  'ssn', 'ext', 'extension', 'barcode', 'qr code', 'qrcode', 'error code', 'status code', 'country code',
  'product code', 'item code', 'source code', 'shortcode', 'short code', 'sms short code', 'encode', 'decode', 'unicode', 'opcode',
  'total', 'subtotal', 'amount', 'balance', 'price', 'payment', 'merchant', 'transaction', 'txn', 'no', 'nr',
  'n°', 'nº', 'no.', 'nr.', 'dial', 'registration number', 'booking code', 'reservation code', 'ticket code',
  'event code', 'class code', 'course code', 'tax code', 'code review', 'code reviews', 'code base', 'codebase',
  'code of conduct', 'code snippet', 'code sample', 'sample code', 'example code', 'dress code', 'gift card code',
  'buchungscode', 'reservierungscode', 'code de réservation', 'código de reserva', 'код бронирования',
  'código da reserva', 'codice di prenotazione', 'codice prenotazione', 'boekingscode', 'reserveringscode',
  'kod rezerwacji', 'kód rezervace', 'rezervasyon kodu', 'bokningskod', 'bookingkode', 'varauskoodi',
  'foglalási kód', 'cod de rezervare', 'kode booking', 'kode pemesanan', 'κωδικός κράτησης', 'κωδικό κράτησης',
  'κωδικού κράτησης', 'קוד הזמנה', 'رمز الحجز', 'बुकिंग कोड', '预订代码', '预订码', '預訂代碼', '訂位代號',
  // A code that names a party (customer, supplier, partner, member): an identifier, not a secret
  'customer code', 'client code', 'supplier code', 'vendor code', 'partner code', 'dealer code', 'member code',
  'agent code', 'branch code', 'store code', 'employee code', 'kundencode', 'lieferantennummer',
  'lieferantencode', 'partnernummer', 'code client', 'code fournisseur', 'code adhérent', 'código de cliente',
  'código do cliente', 'código de proveedor', 'código do fornecedor', 'codice cliente', 'codice fornitore',
  'codice fiscale', 'klantcode', 'leverancierscode', 'kod klienta', 'kod dostawcy', 'код клиента',
  'код поставщика', 'müşteri kodu', 'tedarikçi kodu',
  // German
  'bestellung', 'bestellnummer', 'bestell nr', 'auftragsnummer', 'rechnung', 'rechnungsnummer', 'kundennummer',
  'kunden nr', 'kundennr', 'kontonummer', 'konto nr', 'vertragsnummer', 'sendungsnummer', 'plz',
  'postleitzahl', 'telefon', 'hausnummer', 'referenz', 'buchungsnummer', 'ticketnummer', 'vorgangsnummer',
  'mitgliedsnummer', 'artikelnummer', 'gutscheincode', 'rabattcode', 'aktionscode', 'straße', 'strasse', 'str',
  'betrag', 'summe', 'preis',
  // French
  'commande', 'numéro de commande', 'facture', 'réservation', 'dossier', 'numéro de compte', 'numéro client',
  'carte', 'se terminant par', 'téléphone', 'tél', 'appel', 'appelez', 'code postal', 'code promo', 'colis',
  'suivi', 'adhérent', 'rue', 'montant', 'prix',
  // Spanish / Portuguese
  'pedido', 'número de pedido', 'orden', 'factura', 'reserva', 'número de cuenta', 'número de cliente', 'número do cliente', 'tarjeta',
  'terminada en', 'teléfono', 'llame', 'código postal', 'codigo postal', 'cupón', 'código promocional',
  'envío', 'seguimiento', 'socio', 'nº de', 'calle', 'avenida', 'importe', 'precio', 'encomenda', 'fatura',
  'número da conta', 'cartão', 'terminado em', 'telefone', 'ligue', 'cep', 'nif', 'cpf', 'cnpj', 'referência',
  'cupom', 'rastreio', 'rastreamento', 'sócio', 'rua', 'valor', 'preço', 'codice postale', 'ordine',
  // Russian
  'заказ', 'заказа', 'номер заказа', 'счёт', 'счет', 'лицевой счёт', 'индекс', 'телефон', 'тел', 'договор',
  'карта', 'карты', 'оканчивающейся', 'посылка', 'трек', 'инн', 'бик', 'номер клиента', 'ул', 'улица', 'дом',
  'промокод', 'штрихкод', 'сумма', 'кодекс',
  // Japanese
  '注文番号', 'ご注文', '注文', 'お問い合わせ番号', '予約番号', '会員番号', '郵便番号', '〒', '電話', '口座',
  'カード', '請求', '伝票番号', '追跡番号', '合計', '金額', 'バーコード', 'クーポンコード', 'プロモーションコード',
  // Chinese
  '订单号', '訂單號', '订单', '訂單', '会员编号', '會員編號', '会员号', '會員號', '编号', '編號', '邮编', '郵編',
  '郵遞區號', '电话', '電話', '客服专线', '客服專線', '专线', '專線', '热线', '熱線', '账号', '帳號', '卡号',
  '卡號', '尾号', '尾號', '金额', '金額', '优惠码', '優惠碼', '邀请码', '邀請碼', '条形码', '條碼',
  // Other languages
  'klantnummer', 'bestelnummer', 'ordernummer', 'factuurnummer', 'kvk', 'btw', 'huisnummer', 'numer zamówienia',
  'zamówienie', 'nip', 'regon', 'krs', 'kod pocztowy', 'numer klienta', 'číslo objednávky', 'číslo zákazníka',
  'objednávka', 'ičo', 'dič', 'psč', 'kundnummer', 'streckkod', 'org nr', 'organisationsnummer', 'organisasjonsnummer',
  'postnummer', 'momsnummer', 'kundenummer', 'ordrenummer', 'cvr', 'asiakasnumero', 'tilausnumero', 'y tunnus',
  'postinumero', 'müşteri numarası', 'müşteri no', 'sipariş', 'sipariş numarası', 'sipariş no', 'vergi no', 'mersis',
  'posta kodu', 'αριθμός πελάτη', 'παραγγελία', 'αφμ', 'γεμη', 'τ.κ.', 'מספר לקוח', 'מספר הזמנה', 'מיקוד',
  'ח.פ', 'رقم العميل', 'رقم الطلب', 'الرمز البريدي', 'ص.ب', 'السجل التجاري', 'الرقم الضريبي', 'ग्राहक संख्या',
  'पिन कोड', 'ऑर्डर', 'รหัสสมาชิก', 'รหัสไปรษณีย์', 'หมายเลขคำสั่งซื้อ', 'เลขประจำตัวผู้เสียภาษี', 'mã số thuế',
  'mã khách hàng', 'mã bưu chính', 'mã bưu điện', 'mã đơn hàng', 'đơn hàng', 'id pelanggan', 'nomor pesanan',
  'npwp', 'kode pos', 'pesanan', 'rendelésszám', 'ügyfélszám', 'adószám', 'irányítószám', 'număr comandă',
  'cod poștal', 'comanda', 'номер замовлення', 'numero ordine', 'partita iva',
  'код плательщика', 'код абонента', 'код потребителя', 'cod client', 'cod abonat', 'cod loc de consum', 'cod loc consum', 'cod fiscal', 'cod de identificare fiscală',
  'mã giao dịch', 'mã gd', 'mã tham chiếu', 'registrikood', 'isikukood', 'viitenumber', 'klienta kods',
  'kliento kodas', 'įmonės kodas', 'asmens kodas', 'pasta indekss', 'pašto kodas', 'poštanski broj',
  'poštna številka',
  // Persian and Urdu: a card or account "ending in", tracking and transaction numbers, helplines
  'المنتهي', 'المنتهي بـ', 'ينتهي بـ', 'هاتفك', 'رقم الهاتف', 'منتهی به', 'شماره پیگیری', 'شماره کارت', 'شماره حساب', 'شماره شبا', 'پشتیبانی', 'کارت',
  'آخر میں', 'کے آخر میں', 'ٹرانزیکشن آئی ڈی', 'ہیلپ لائن', 'اکاؤنٹ نمبر', 'رابطہ نمبر', 'انتهاء', 'المنتهية',
  // Korean
  '주문번호', '주문', '우편번호', '전화', '고객센터', '계좌', '카드', '쿠폰', '쿠폰 코드',
  '상품 코드', '상품코드', '예약 코드', '예약코드', '할인 코드', '할인코드', '고객 코드', '고객코드',
  // Compounds of a bare "code" word (mã, รหัส, コード) that name other numbers
  'mã đặt vé', 'mã đặt chỗ', 'mã đặt phòng', 'mã vé', 'mã đơn', 'mã sản phẩm', 'mã vận đơn', 'mã giảm giá',
  'mã khuyến mãi', 'mã hóa đơn', 'mã hội viên', 'รหัสลูกค้า', 'รหัสสินค้า', 'รหัสการจอง', 'รหัสสั่งซื้อ',
  'รหัสส่วนลด', 'รหัสพัสดุ', '商品コード', '予約コード', 'お客様コード', '注文コード', '割引コード',
  '会員コード', '商品编码', '商品代码', '商品編碼',
];

export const otpKeywords = new KeywordMatcher([
  [CODE_WORD, CODE_WORDS],
  [NUMBER_LABEL, NUMBER_LABELS],
  [MEETING, MEETING_WORDS],
  [ENTER, ENTER_WORDS],
]);
