// Multilingual phrases for the link scorer: what asks the reader to verify/confirm/sign in/reset,
// what marks every other kind of link, and the "wasn't you?" sentences that turn a link into a
// safety exit. Same phrase syntax as keywords.ts.
import { KeywordMatcher } from './keywords.js';

export const ACTION = 1;
export const OTHER = 2;
export const NEGATION = 3;
export const NEUTRALIZER = 4;
/** Signing in is a verification act only when the mail is about signing in (magic links). */
export const SIGN_IN = 5;

/** Imperatives and nouns of the verification act. Past tenses ("verified", "confirmed") are absent on purpose. */
const ACTIONS = [
  // English
  'verify', 'verification', 'confirm', 'confirmation', 'activate', 'activation', 'magic link', 'reset',
  'new password', 'set password', 'set your password', 'set up your password', 'create password', 'create your password', 'choose password', 'choose a password',
  'choose a new password', 'complete registration', 'complete your registration', 'finish signing up',
  'approve', 'authorize', 'authorise', 'validate', 'subscribe me', 'yes subscribe',
  'it was me', 'this was me', 'that was me', 'yes it\'s me', 'it\'s me', 'that\'s me', 'c\'est moi', 'soy yo',
  'sou eu', 'это я',
  // German
  'bestätigen', 'bestätige', 'bestätigung', 'bestaetigen', 'verifizieren', 'verifiziere', 'verifizierung',
  'aktivieren', 'aktiviere', 'aktivierung', 'zurücksetzen', 'neues passwort',
  'freigeben', 'registrierung abschließen',
  // French
  'vérifier', 'vérifiez', 'vérification', 'confirmer', 'confirmez', 'activer', 'activez', 'réinitialiser',
  'réinitialisez', 'nouveau mot de passe', 'valider', 'validez',
  'approuver',
  // Spanish / Portuguese / Italian
  'verificar', 'verifica', 'verifique', 'verificación', 'confirmar', 'confirma', 'confirme', 'confirmación',
  'activar', 'activa', 'activación', 'restablecer', 'restablece', 'nueva contraseña', 'validar', 'aprobar',
  'verificação', 'confirmação', 'ativar', 'ative', 'ativação', 'redefinir', 'nova senha', 'aprovar', 'conferma',
  'confermare', 'verifica email', 'attiva',
  // Russian
  'подтверд*', 'подтвержд*', 'активир*', 'активац*', 'сбросить', 'сброс пароля', 'новый пароль', 'верифик*',
  // Japanese / Chinese / Korean
  '確認', '認証', '有効化', '本登録', '登録を完了', '再設定', 'リセット', '承認',
  '验证', '驗證', '确认', '激活', '啟用', '启用', '重置', '重设', '重設', '批准',
  '인증', '확인', '활성화', '재설정',
];

/** Sign-in words: a magic link says them, but so does "Log in to view your statement". */
const SIGN_INS = [
  'sign in', 'signing in', 'log in', 'log on', 'logging in', 'login', 'anmelden', 'einloggen', 'anmeldung',
  'se connecter', 'connectez vous', 'connexion', 'iniciar sesión', 'inicia sesión', 'entrar', 'fazer login',
  'iniciar sessão', 'accedi', 'accesso', 'войти', 'вход', 'ログイン', 'サインイン', '登录', '登入', '로그인',
];

/** Anchors and lead-ins of every other kind of link. */
const OTHERS = [
  // English
  'unsubscribe', 'opt out', 'preferences', 'email preferences', 'manage', 'manage subscription',
  'view in browser', 'view online', 'view in your browser', 'view this email', 'view it in your browser',
  'web version', 'browser', 'privacy', 'privacy policy', 'terms', 'legal', 'cookie', 'cookies', 'help',
  'help center', 'support', 'faq', 'contact', 'contact us', 'learn more', 'read more', 'forward', 'share',
  'follow', 'facebook', 'twitter', 'instagram', 'linkedin', 'youtube', 'tiktok', 'app store', 'google play',
  'download', 'deny', 'block', 'report', 'cancel', 'let us know', 'dashboard', 'track', 'tracking', 'order',
  'view order', 'invoice', 'pay', 'pay now', 'get started', 'getting started', 'home', 'homepage', 'website',
  'logo', 'rules', 'guidelines', 'community', 'blog', 'shop', 'store', 'find', 'book now', 'deals', 'offers',
  'sale', 'secure your account', 'secure account', 'change password', 'change your password', 'review activity',
  'this wasn\'t me', 'remove', 'review', 'new sign in', 'new login', 'recent sign in', 'sign in attempt',
  'login attempt', 'sign in activity', 'login activity', 'new device', 'sign in alert', 'login alert',
  'security alert', 'neue anmeldung', 'nouvelle connexion', 'nuevo inicio de sesión', 'novo login',
  'новый вход', '新しいログイン', '新登录', '新的登录', '새로운 로그인', 'feedback', 'survey', 'careers', 'press', 'status',
  // German
  'abmelden', 'abbestellen', 'newsletter abbestellen', 'datenschutz', 'datenschutzerklärung', 'impressum',
  'hilfe', 'kontakt', 'agb', 'einstellungen', 'im browser', 'online ansehen', 'sendung verfolgen', 'bestellung',
  // French
  'désabonner', 'se désabonner', 'désinscrire', 'désinscription', 'désabonnement', 'confidentialité',
  'mentions légales', 'aide', 'nous contacter', 'contactez', 'préférences', 'version en ligne', 'voir la version',
  'commande',
  // Spanish / Portuguese
  'darse de baja', 'baja', 'cancelar suscripción', 'privacidad', 'ayuda', 'contacto', 'contáctanos',
  'preferencias', 'ver en el navegador', 'pedido', 'rastrear', 'descadastrar', 'descadastre',
  'cancelar inscrição', 'cancelar assinatura', 'privacidade', 'ajuda', 'contato', 'fale conosco',
  'preferências', 'ver no navegador',
  // Russian
  'отписаться', 'отписка', 'отказаться от рассылки', 'конфиденциальность', 'помощь', 'поддержка', 'связаться',
  'заказ',
  // Japanese / Chinese / Korean
  '配信停止', '登録解除', '購読解除', 'プライバシー', 'ヘルプ', 'お問い合わせ', '利用規約', 'ご注文',
  '退订', '退訂', '取消订阅', '取消訂閱', '隐私', '隱私', '帮助', '幫助', '联系我们', '聯絡我們', '客服', '订单',
  '訂單', '수신거부', '수신 거부', '개인정보', '고객센터', '도움말',
];

/** "If this wasn't you…" sentences: a link right after one is a safety exit, not the verification. */
const NEGATIONS = [
  'didn\'t', 'did not', 'didnt', 'wasn\'t', 'was not', 'not you', 'not me', 'don\'t recognize',
  'do not recognize', 'don\'t recognise', 'unauthorized', 'unauthorised', 'not expecting',
  'nicht du', 'nicht sie', 'warst du das nicht', 'waren sie das nicht', 'nicht angefordert', 'nicht von dir',
  'nicht von ihnen', 'nicht veranlasst',
  'pas vous', 'pas toi', 'n\'êtes pas', 'n\'étiez pas', 'n\'avez pas', 'pas à l\'origine',
  'no fuiste tú', 'no fuiste tu', 'no fue usted', 'no has solicitado', 'no solicitaste', 'no reconoces',
  'no lo solicitaste', 'não foi você', 'nao foi voce', 'não solicitou', 'não reconhece',
  'не вы', 'не запрашивали', 'не делали', 'не совершали',
  '心当たりのない', '心当たりがない', '身に覚えのない', '身に覚えがない',
  '不是您本人', '非本人', '不是您', '不是你', '並非您本人', '非您本人', '본인이 아닌', '요청하지 않은',
];

/** Words that turn a preceding negation into a harmless disclaimer ("…didn't sign up? Ignore this."). */
const NEUTRALIZERS = [
  'ignore', 'disregard', 'otherwise', 'no action', 'no further action', 'nothing to do', 'keine weiteren',
  'ignorieren', 'ignoriere', 'ignorer', 'ignorez', 'ignora', 'ignorar',
  'desconsidere', 'игнорируйте', 'проигнорируйте', '無視', '破棄', '忽略', '无视', '무시',
];

export const linkKeywords = new KeywordMatcher([
  [ACTION, ACTIONS],
  [SIGN_IN, SIGN_INS],
  [OTHER, OTHERS],
  [NEGATION, NEGATIONS],
  [NEUTRALIZER, NEUTRALIZERS],
]);

/** Substrings of a URL's path and query that signal each kind (URLs have no word boundaries). */
export const URL_ACTION = /verif|confirm|activat|activar|ativar|aktivier|bestaetig|bestätig|magic|login|log-in|signin|sign-in|sign_in|auth|reset|password|passwort|approve|validat|token=/;
/** URL stems that corroborate a sign-in anchor (a magic link, not a login page behind a tracker). */
export const URL_SIGN_IN = /magic|login|log-in|signin|sign-in|sign_in|auth|token=|otp|passwordless/;
export const URL_OTHER = /unsubscribe|unsub|optout|opt-out|opt_out|preference|privacy|\/terms|legal|\/help|support|faq|contact|report|deny|\/block|cancel|logo|\/view|browser|getting-started|\/orders?\b|invoice|abmelden|desinscri|baja/;
/** Whole-host match only (www/m allowed), so "id.x.example" is not X. */
export const SOCIAL_HOST = /^(?:www\.|m\.)?(?:facebook|fb|twitter|x|instagram|linkedin|youtube|youtu|tiktok|pinterest|t|whatsapp|apps\.apple|play\.google|itunes\.apple)\.[a-z]+$/;
